"""French sentences, written -> said, each spoken form checked by hand.

A row is (genre, source, written, said): genre is the kind of text (news, recipe, timetable,
sports, novel, invoice, other); source names where the number expression was seen as printed: the
address of a published page (the `S_` names below) whose number expression and the words that
govern its form the row keeps, the rest of the sentence being ours, or "written here" for rows
composed for this table."""

# Where the number expressions of the rows below were seen as printed.
S_C4S = "http://cuisinede4sous.canalblog.com/archives/2008/10/01/10789547.html"
S_APF = "https://www.apf77-floucault.fr/ce-gateau-5-4-3-2-1-va-vous-rendre-accro-recette-ultra-facile-a-tester-ce-soir/"
S_SUSHI = "https://sushimidori.be/blog/post/64665/recette-et-astuces-pour-une-patisserie-en-5-minutes-le-gateau-aux-6-cuilleres-a-soupe-de-farine"
S_EASY = "http://easygourmet.over-blog.com/article-1-2-3-rate-mais-bon-85226810.html"
S_FAERY = "https://mysweetfaery.blogspot.com/2010_07_12_archive.html"
S_PAPER = "https://paperblog.fr/1412067/le-gouter/amp"
S_AIR = "https://airliquide.publispeak.com/avis-de-convocation-2024/article/9"
S_LISI = "https://www.boursorama.com/bourse/actualites/lisi-resultat-operationnel-courant-en-hausse-de-1-8-eb8446bd8fe4fbd446dcf5f0a7cebe0d"
S_CAP = "https://www.capgemini.com/ca-fr/actualites/communiques-de-presse/capgemini-realise-une-nouvelle-performance-record-en-2023/"
S_CAPI = "https://investors.capgemini.com/fr/publication/resultats-du-1er-semestre-2023"
S_HER = "https://www.globenewswire.com/news-release/2024/02/09/2826582/0/fr/Herm%C3%A8s-International-R%C3%A9sultats-annuels-2023.html"
S_ALS = "https://boursica.com/informations-communiques-bourse/lire-depeche.php2/news/357196/dep_isin/FR0010220475"
S_TOT = "https://fr.finance.yahoo.com/actualites/totalenergies-r%C3%A9sultats-troisi%C3%A8me-trimestre-2022-114000966.html"
S_ASM = "https://asmbystf.fr/news/2024/05/7520"
S_SOF17 = "http://www.sofoot.com/bastia-et-nancy-en-l2-lorient-barragiste-443190.html"
S_FM = "https://www.footmercato.net/a2210582236676072313-ligue-1-monaco-qualifie-en-c1-nice-lille-et-strasbourg-battus-lol-dit-presque-adieu-a-la-c1"
S_E1 = "https://europe1.fr/sport/en-direct-la-38e-et-derniere-journee-de-ligue-1-970384"
S_IKEA = "https://ikeagenie.store/sports/foot/ligue-1/ligue-1-le-recit-de-la-folle-soiree-qui-voit-brest-acceder-directement-a-la-ligue-des-champions-et-lyon-europeen_6536762.html"
S_SOFM = "https://sofoot.com/articles/suivez-le-multiplex-de-la-derniere-journee-de-ligue-1"
S_SOF38 = "https://sofoot.com/articles/lol-termine-en-beaute-rolan-inaugure-le-stade-des-girondins"
S_KEL = "https://kelnews.fr/2018/05/13/ligue-1-monaco-reprend-la-deuxieme-place-lille-et-strasbourg-se-sauvent-lyon-perd-gros/"
S_ALSACE = "http://www.alsacechampagneardennelorraine.eu/nouveau-dessertes-ter/"
S_WIKI = "https://wikizero.net/wiki/fr/TER_Haute-Normandie"
S_LYON = "https://www.lyonmag.com/article/32529/les-horaires-des-trains-changent-dimanche-dans-toute-la-france"
S_WORT = "https://www.wort.lu/fr/granderegion/ter-metz-luxembourg-attention-horaires-modifies-63624a5dde135b9236dc8381"
S_PA = "https://www.petitesaffiches.fr/actualites,069/economie,045/ce-dimanche-11-decembre-vos,26580.html"
S_CLE = "https://docslib.org/doc/662998/cle-ni-du-2804-au-0405-v210218"
S_LOR = "https://docslib.org/doc/13543808/fh-lorraine-17-web-hiver-2018-indd"
S_LYS = "https://lysardent.fr/tag/louis-xiii"
S_AUDIO = "https://audioguide-paris.com/index.php/2019/04"
S_CRCV = "http://crcv.revues.org/11956"
S_KIWIX = (
    "https://kiwix.jackbot.fr/content/wikipedia_fr_all_maxi_2021-09/A/Louis_de_France_(1729-1765)"
)
S_BDF = "https://doczz.fr/doc/177216/visite-du-si%C3%A8ge-de-la-banque-de-france-%C3%A0-paris"
S_COSMO = "http://www.cosmovisions.com/LouisXIII.htm"
S_YOU = "http://www.youscribe.com/catalogue/livres/savoirs/sciences-humaines-et-sociales/la-mort-de-louis-xiv-apogee-et-crepuscule-1er-septembre-1715-2638260"
S_MOL = "https://www.moliere.com/fr/gaussen-david-3b-turin-malika-l-ile-de-france-au-temps-de-louis-xiv-1661-1715-9782840963479.html"
S_FACTU = "https://factu.net"
S_AJ = "http://www.assistant-juridique.fr/modele_facture_tva.jsp"
S_COMEXA = "https://comexa.fr/la-facture-ses-mentions-obligatoires/"
S_SP = (
    "https://lesollieressureyrieux.fr/service-public-fr/service-public-fr-professionnels/?xml=R1333"
)
S_MART = "https://www.bellemartinique.com/la-martinique/cuisine-saveurs/epices/cannelle/"
S_JEANNE = (
    "https://www.latabledejeanne.net/comment-bien-doser-les-ingredients-avec-une-cuillere-a-soupe"
)
S_RAPIDE = "https://cuisine-rapide.fr/recettes-faciles/cuisiner-sans-balance-recettes-faciles-a-mesurer-a-la-cuillere-2764"
S_PG = "https://www.plaisirs-gourmands.com/le-mystere-de-la-cuillere-a-cafe-combien-de-millilitres-exactement"
S_CABANE = "https://cabaneasucremobile.com/?p=22"
S_AMAP = "https://www.amapbegles33.fr/category/uncategorized/page/4/"
S_DELICES = "http://mesdelices.fr/lire-une-recette/"
S_POP = "https://www.reponserapide.com/country.php?iso2=BH&name=Bahre%C3%AFn"
S_SUISSE = "https://francematin.info/La-Suisse-comptait-7-459-100-habitants-permanents-a-fin-2005_a6648.html"
S_LYCAP = "https://www.lyoncapitale.fr/culture/il-y-a-20-ans-a-lyon-la-jungle-ne-fait-pas-la-loi/"
S_20MIN = "https://www.20minutes.fr/culture/musique/4027819-20230314-musique-annees-1990-peuvent-elles-rivaliser-annees-1980-dites"
S_HIFI = "https://forum-hifi.fr/showthread.php?mode=threaded&pid=315919&tid=14556"
S_SOIR = "https://plus.lesoir.be/330845/article/2020-10-11/roland-garros-rafael-nadal-domine-novak-djokovic-en-finale-et-egale-federer-avec"
S_E1TEN = "https://www.europe1.fr/sport/tennis-laustralienne-ashleigh-barty-remporte-roland-garros-aux-depens-de-la-tcheque-marketa-vondrousova-3903554"
S_SYMP = "http://www.sympatico.ca/actualites/nouvelles/grands-titres/djokovic-champion-a-roland-garros-1.1767500"
S_TDF15 = "https://fr.teknopedia.teknokrat.ac.id/wiki/4e_%C3%A9tape_du_Tour_de_France_2015"
S_TDF17 = "https://wikiwand.com/fr/articles/4e_%C3%A9tape_du_Tour_de_France_2017"
S_TDF24 = "https://ikeaflex.store/tour-de-france/etape-du-jour/tour-de-france-2024-premiere-etape-de-montagne-horaires-explication-entre-favoris-dans-le-col-du-galibier-la-4e-etape-en-questions_6632025.html"
S_RTL = "https://www.rtl.fr/sport/autres-sports/en-direct-tour-de-france-2017-suivez-la-4e-etape-mondorf-les-bains-vittel-en-live-commente-7789211505"
S_LGB = "http://lagrandeboucle.com/spip.php?article3976"
S_CELLE = "https://mairielacellesaintcyr.fr/alerte-orages-violents-2"
S_JMM = "https://www.jeanmarcmorandini.com/article-611212-alerte-meteo-deux-departements-maintenus-en-vigilance-orange-canicule-13-departements-en-vigilance-orange-pour-des-orages-violents-les-details-ici.html"
S_MCONS = "https://www.meteoconsult.fr/meteo-france/destination/previsions-meteo-la-maison-rouge-84764-0.php"
S_EDITO = "https://www.editoweb.eu/Alerte-aux-orages-et-a-la-canicule-dans-plusieurs-regions-de-France_a39301.html"
S_LINT = "https://www.linternaute.com/actualite/societe/8179947-vigilance-orages-et-chaleur-en-france-greles-et-pluies-violentes-dans-ces-departements/"
S_HUFF = "https://www.huffingtonpost.fr/entry/orages-meteo-france-place-27-departements-du-nord-en-alerte-orange_fr_60cd8928e4b0e08c64bae0c3"
S_MDV = "https://mondeduvin.fr/la-pate-a-crepe"
S_OMNI = "http://omnilogie.fr/O/Les_cr%C3%AApes"
S_HUFFC = "https://www.huffingtonpost.fr/life/article/pour-la-chandeleur-les-meilleures-recettes-de-pate-a-crepes-pour-tous-les-gouts-clx1_117224.html"
S_PAPIL = "https://papillesalaffut.com/des-crepes-tout-simplement"
S_BERLIN = "https://vivreaberlin.com/?p=11524"
S_PARINFO = "https://parinfo.fr/node/5480"
S_LEGIMI = "https://www.legimi.de/e-book-le-tour-du-monde-en-quatre-vingts-jours-illustrated-jules-verne,b1255800.html"
S_99EB = "https://br.99ebooks.net/download/tour-du-monde-en-quatre-vingts-jours-le"
S_MAGH = "https://maghress.com/fr/lesoir/66608"
S_WIKIMINI = "https://fr.wikimini.org/wiki/Beno%C3%AEt_XVI"
S_LAROUSSE = "https://www.larousse.fr/encyclopedie/personnage/_Beno%C3%AEt_XVI/108377"
S_MOLLAT = "https://mollat.azurewebsites.net/dossiers/deces-de-benoit-xvi-le-pape-theologien"
S_FINTER = (
    "https://www.franceinter.fr/politique/elections-legislatives-les-resultats-du-second-tour"
)
S_LINT17 = "http://www.linternaute.com/actualite/politique/1274309-legislatives-2017-les-resultats-qui-sera-president-de-l-assemblee/"
S_KIWGL = "https://kiwix.jackbot.fr/content/wikipedia_fr_all_maxi_2021-09/A/Paris-Gare-de-Lyon"
S_LITANIE = "https://litanie.fr/jean-paul-2"
S_EVANG = "https://evangile.azurewebsites.net/auteur/JeanPaulII"
S_QQC = "https://qqcitations.com/citation/130883"
S_AYGULF = "http://paroisse-saint-aygulf.fr/index.php/prieres-et-liturgie/saints-par-mois/icalrepeat.detail/2024/10/22/25138/-/saint-jean-paul-ii-pape"
S_BOITE = "http://boitedependore.com/avril/jeanpaul11.htm"
S_SECOB = "https://www.secob.fr/metiers/juridique-et-fiscal/rappel-des-mentions-obligatoires-sur-les-factures"
S_WONDER = (
    "https://blog.wonder.legal/fr/professionnels/commercial/mentions-obligatoires-a-porter-factures"
)
S_MOTAMOT = "https://motamot.com/zoompages/facture.php"
S_SALENGO = "https://fr.salengo.com/hors-categorie/mentions-obligatoires-sur-une-facture-2024"
S_EXPERTS = "https://les-experts-comptables-paris.com/tag/mentions-obligatoires/"

ROWS = [
    (
        "news",
        "written here",
        "Le CAC 40 a gagné 1,5 % vendredi.",
        "Le CAC quarante a gagné un virgule cinq pour cent vendredi.",
    ),
    (
        "news",
        "written here",
        "Le projet coûte 5 millions d'euros.",
        "Le projet coûte cinq millions d'euros.",
    ),
    (
        "news",
        "written here",
        "Le 14 juillet 1789, la Bastille tomba.",
        "Le quatorze juillet mille sept cent quatre-vingt-neuf, la Bastille tomba.",
    ),
    (
        "news",
        "written here",
        "Plus de 21 femmes ont été élues.",
        "Plus de vingt et une femmes ont été élues.",
    ),
    (
        "news",
        "written here",
        "Le chômage est passé de 8 % à 7,5 %.",
        "Le chômage est passé de huit pour cent à sept virgule cinq pour cent.",
    ),
    (
        "recipe",
        "written here",
        "Cuire à 180 °C pendant 25 minutes.",
        "Cuire à cent quatre-vingts degrés Celsius pendant vingt-cinq minutes.",
    ),
    (
        "recipe",
        "written here",
        "Ajouter 1 cuillère de sucre et 250 g de farine.",
        "Ajouter une cuillère de sucre et deux cent cinquante grammes de farine.",
    ),
    ("recipe", "written here", "Laisser reposer 1 h.", "Laisser reposer une heure."),
    ("recipe", "written here", "Verser 1/2 litre de lait.", "Verser un demi-litre de lait."),
    (
        "timetable",
        "written here",
        "Le train part à 22 h 30.",
        "Le train part à vingt-deux heures trente.",
    ),
    (
        "timetable",
        "written here",
        "Ouverture à 9h, fermeture à 18h30.",
        "Ouverture à neuf heures, fermeture à dix-huit heures trente.",
    ),
    (
        "timetable",
        "written here",
        "Rendez-vous le 02.03.2003 à 10:15.",
        "Rendez-vous le deux mars deux mille trois à dix heures quinze.",
    ),
    ("sports", "written here", "Le PSG a gagné 3-0.", "Le PSG a gagné trois à zéro."),
    (
        "sports",
        "written here",
        "Elle a terminé 1re du classement.",
        "Elle a terminé première du classement.",
    ),
    ("sports", "written here", "C'est sa 2e victoire.", "C'est sa deuxième victoire."),
    ("novel", S_MOL, "Louis XIV régna longtemps.", "Louis quatorze régna longtemps."),
    (
        "novel",
        "written here",
        "M. Dupont habitait au n° 5.",
        "Monsieur Dupont habitait au numéro cinq.",
    ),
    ("novel", "written here", "Mme Martin avait 1 fille.", "Madame Martin avait une fille."),
    ("novel", "written here", "Il avait 21 ans.", "Il avait vingt et un ans."),
    ("novel", "written here", "C'était le 1er mai.", "C'était le premier mai."),
    (
        "invoice",
        "written here",
        "Total : 1 250,50 €.",
        "Total : mille deux cent cinquante euros et cinquante centimes.",
    ),
    (
        "invoice",
        "written here",
        "Facture de 99 € payée.",
        "Facture de quatre-vingt-dix-neuf euros payée.",
    ),
    (
        "invoice",
        "written here",
        "Vitesse limitée à 50 km/h.",
        "Vitesse limitée à cinquante kilomètres heure.",
    ),
    (
        "invoice",
        "written here",
        "La surface est de 80 m².",
        "La surface est de quatre-vingts mètres carrés.",
    ),
    ("invoice", "written here", "Il a gagné 1 million.", "Il a gagné un million."),
    (
        "news",
        "written here",
        "Le taux est passé à 3,5 %.",
        "Le taux est passé à trois virgule cinq pour cent.",
    ),
    (
        "news",
        "written here",
        "L'État a prêté 2 milliards d'euros.",
        "L'État a prêté deux milliards d'euros.",
    ),
    (
        "news",
        "written here",
        "Le 1er janvier 2024, la loi est entrée en vigueur.",
        "Le premier janvier deux mille vingt-quatre, la loi est entrée en vigueur.",
    ),
    ("news", "written here", "Il y a eu 1 200 blessés.", "Il y a eu mille deux cents blessés."),
    (
        "news",
        "written here",
        "Les années 90 furent prospères.",
        "Les années quatre-vingt-dix furent prospères.",
    ),
    (
        "news",
        "written here",
        "Il fait -3 °C ce matin.",
        "Il fait moins trois degrés Celsius ce matin.",
    ),
    ("recipe", "written here", "Faire cuire 20 min.", "Faire cuire vingt minutes."),
    ("recipe", "written here", "Ajouter 1 pincée de sel.", "Ajouter une pincée de sel."),
    ("recipe", "written here", "Compter 1 heure de cuisson.", "Compter une heure de cuisson."),
    ("recipe", "written here", "Prendre 3/4 de la pâte.", "Prendre trois quarts de la pâte."),
    ("timetable", "written here", "Le magasin ouvre à 8 h.", "Le magasin ouvre à huit heures."),
    ("timetable", "written here", "Horaires : 9-17 h.", "Horaires : neuf à dix-sept heures."),
    (
        "timetable",
        "written here",
        "Départ à 6:45, arrivée à 9:10.",
        "Départ à six heures quarante-cinq, arrivée à neuf heures dix.",
    ),
    (
        "sports",
        "written here",
        "La France a battu le Brésil 3-0.",
        "La France a battu le Brésil trois à zéro.",
    ),
    (
        "sports",
        "written here",
        "C'est la 21e étape du Tour.",
        "C'est la vingt et unième étape du Tour.",
    ),
    (
        "sports",
        "written here",
        "Il a couru le 100 m en 9,9 secondes.",
        "Il a couru le cent mètres en neuf virgule neuf secondes.",
    ),
    ("sports", "written here", "Elle a gagné 1 médaille d'or.", "Elle a gagné une médaille d'or."),
    ("novel", "written here", "Il avait 1 sœur et 2 frères.", "Il avait une sœur et deux frères."),
    (
        "novel",
        "written here",
        "Napoléon III régna de 1852 à 1870.",
        "Napoléon trois régna de mille huit cent cinquante-deux à mille huit cent soixante-dix.",
    ),
    ("novel", "written here", "Ils se marièrent le 2 mai.", "Ils se marièrent le deux mai."),
    ("novel", "written here", "C'était au XIXe siècle.", "C'était au dix-neuvième siècle."),
    ("invoice", "written here", "Réf. n° 2045.", "Référence numéro deux mille quarante-cinq."),
    (
        "invoice",
        "written here",
        "Montant : 49,90 €.",
        "Montant : quarante-neuf euros et quatre-vingt-dix centimes.",
    ),
    (
        "invoice",
        "written here",
        "Paiement avant le 15/03/2024.",
        "Paiement avant le quinze mars deux mille vingt-quatre.",
    ),
    ("invoice", "written here", "Livraison en 2-4 jours.", "Livraison en deux à quatre jours."),
    (
        "news",
        "written here",
        "Le chômage atteint 7,3 % au 2e trimestre.",
        "Le chômage atteint sept virgule trois pour cent au deuxième trimestre.",
    ),
    (
        "news",
        "written here",
        "La ville compte 2 millions d'habitants.",
        "La ville compte deux millions d'habitants.",
    ),
    (
        "news",
        "written here",
        "Le 6 juin 1944, les Alliés débarquèrent.",
        "Le six juin mille neuf cent quarante-quatre, les Alliés débarquèrent.",
    ),
    (
        "news",
        "written here",
        "Le budget s'élève à 3 milliards d'euros.",
        "Le budget s'élève à trois milliards d'euros.",
    ),
    (
        "news",
        "written here",
        "Il y a 21 communes concernées.",
        "Il y a vingt et une communes concernées.",
    ),
    ("recipe", "written here", "Cuire 1 h 30 à feu doux.", "Cuire une heure trente à feu doux."),
    (
        "recipe",
        "written here",
        "Ajouter 1 cuillère à soupe de miel.",
        "Ajouter une cuillère à soupe de miel.",
    ),
    (
        "recipe",
        "written here",
        "Mélanger 500 g de farine et 3 œufs.",
        "Mélanger cinq cents grammes de farine et trois œufs.",
    ),
    ("recipe", "written here", "Pour 4-6 personnes.", "Pour quatre à six personnes."),
    ("timetable", "written here", "Le musée ferme à 18 h.", "Le musée ferme à dix-huit heures."),
    (
        "timetable",
        "written here",
        "Premier train à 5h45.",
        "Premier train à cinq heures quarante-cinq.",
    ),
    (
        "timetable",
        "written here",
        "Accueil de 9 h à 12 h.",
        "Accueil de neuf heures à douze heures.",
    ),
    ("sports", "written here", "Lyon s'est imposé 2-1.", "Lyon s'est imposé deux à un."),
    ("sports", "written here", "Il a fini 3e de la course.", "Il a fini troisième de la course."),
    (
        "sports",
        "written here",
        "Elle a sauté 1,95 m.",
        "Elle a sauté un virgule quatre-vingt-quinze mètres.",
    ),
    (
        "sports",
        "written here",
        "C'est la 1re victoire de la saison.",
        "C'est la première victoire de la saison.",
    ),
    ("novel", "written here", "Elle avait 31 ans.", "Elle avait trente et un ans."),
    (
        "novel",
        "written here",
        "Henri IV fut assassiné en 1610.",
        "Henri quatre fut assassiné en mille six cent dix.",
    ),
    ("novel", "written here", "Mme Bovary soupira.", "Madame Bovary soupira."),
    ("novel", "written here", "Il revint au XVIIIe siècle.", "Il revint au dix-huitième siècle."),
    (
        "novel",
        "written here",
        "Il y avait 1 table et 2 chaises.",
        "Il y avait une table et deux chaises.",
    ),
    (
        "invoice",
        "written here",
        "Prix : 12,50 € TTC.",
        "Prix : douze euros et cinquante centimes TTC.",
    ),
    (
        "invoice",
        "written here",
        "Échéance le 30/06/2024.",
        "Échéance le trente juin deux mille vingt-quatre.",
    ),
    ("invoice", "written here", "Remise de 15 %.", "Remise de quinze pour cent."),
    (
        "invoice",
        "written here",
        "Commande n° 7781.",
        "Commande numéro sept mille sept cent quatre-vingt-un.",
    ),
    (
        "news",
        "written here",
        "Le 11 novembre 1918, l'armistice fut signé.",
        "Le onze novembre mille neuf cent dix-huit, l'armistice fut signé.",
    ),
    (
        "news",
        "written here",
        "Les prix ont augmenté de 5,2 %.",
        "Les prix ont augmenté de cinq virgule deux pour cent.",
    ),
    (
        "news",
        "written here",
        "L'entreprise emploie 1 500 salariés.",
        "L'entreprise emploie mille cinq cents salariés.",
    ),
    ("news", "written here", "Il y a eu 41 victimes.", "Il y a eu quarante et une victimes."),
    (
        "news",
        "written here",
        "Le sommet aura lieu le 12.06.2025.",
        "Le sommet aura lieu le douze juin deux mille vingt-cinq.",
    ),
    (
        "recipe",
        "written here",
        "Cuire 12 min à 200 °C.",
        "Cuire douze minutes à deux cents degrés Celsius.",
    ),
    ("recipe", "written here", "Éplucher 1 oignon.", "Éplucher un oignon."),
    (
        "timetable",
        "written here",
        "Le bus passe toutes les 10 min.",
        "Le bus passe toutes les dix minutes.",
    ),
    (
        "timetable",
        "written here",
        "Ouvert de 10 h à 18 h.",
        "Ouvert de dix heures à dix-huit heures.",
    ),
    ("timetable", "written here", "Rendez-vous à 7 h.", "Rendez-vous à sept heures."),
    ("sports", "written here", "Marseille a perdu 0-2.", "Marseille a perdu zéro à deux."),
    ("sports", "written here", "Elle est arrivée 3e.", "Elle est arrivée troisième."),
    (
        "sports",
        "written here",
        "Il a nagé le 200 m en 1:45,3.",
        "Il a nagé le deux cents mètres en une minute quarante-cinq virgule trois secondes.",
    ),
    ("sports", "written here", "C'est son 5e titre.", "C'est son cinquième titre."),
    ("novel", "written here", "Au XXe siècle, tout changea.", "Au vingtième siècle, tout changea."),
    ("novel", "written here", "Il partit avec 1 ami.", "Il partit avec un ami."),
    (
        "novel",
        "written here",
        "Elle lut jusqu'à 2 h du matin.",
        "Elle lut jusqu'à deux heures du matin.",
    ),
    ("novel", "written here", "François Ier aimait Léonard.", "François premier aimait Léonard."),
    ("novel", "written here", "Elle compta jusqu'à 100.", "Elle compta jusqu'à cent."),
    (
        "invoice",
        "written here",
        "Montant total : 99,00 €.",
        "Montant total : quatre-vingt-dix-neuf euros.",
    ),
    (
        "invoice",
        "written here",
        "Payable avant le 31/01/2025.",
        "Payable avant le trente et un janvier deux mille vingt-cinq.",
    ),
    ("invoice", "written here", "Article n° 55.", "Article numéro cinquante-cinq."),
    ("invoice", "written here", "Délai de 2-3 semaines.", "Délai de deux à trois semaines."),
    ("invoice", "written here", "Ça coûte 1 euro.", "Ça coûte un euro."),
    (
        "news",
        "written here",
        "La guerre dura de 1939 à 1945.",
        "La guerre dura de mille neuf cent trente-neuf à mille neuf cent quarante-cinq.",
    ),
    (
        "news",
        "written here",
        "Les bénéfices ont chuté de 10-15 %.",
        "Les bénéfices ont chuté de dix à quinze pour cent.",
    ),
    (
        "news",
        "written here",
        "Le 3 mai 2021, la loi a changé.",
        "Le trois mai deux mille vingt et un, la loi a changé.",
    ),
    ("news", S_HIFI, "Il est né dans les années 80.", "Il est né dans les années quatre-vingt."),
    (
        "recipe",
        "written here",
        "Utiliser ¾ de tasse de sucre.",
        "Utiliser trois quarts de tasse de sucre.",
    ),
    (
        "recipe",
        "written here",
        "Cuire 20-25 min à 180 °C.",
        "Cuire vingt à vingt-cinq minutes à cent quatre-vingts degrés Celsius.",
    ),
    ("recipe", "written here", "Ajouter 1 cuillère de miel.", "Ajouter une cuillère de miel."),
    (
        "timetable",
        "written here",
        "Le musée ouvre à 10 h précises.",
        "Le musée ouvre à dix heures précises.",
    ),
    (
        "timetable",
        "written here",
        "Trains de 5h30 à 23h45.",
        "Trains de cinq heures trente à vingt-trois heures quarante-cinq.",
    ),
    (
        "sports",
        "written here",
        "Nantes a fait 2-2 contre Lille.",
        "Nantes a fait deux à deux contre Lille.",
    ),
    (
        "sports",
        "written here",
        "Il a lancé à 67,5 m en 2016.",
        "Il a lancé à soixante-sept virgule cinq mètres en deux mille seize.",
    ),
    (
        "sports",
        "written here",
        "Elle a couru le mile en 3:59,4.",
        "Elle a couru le mile en trois minutes cinquante-neuf virgule quatre secondes.",
    ),
    (
        "novel",
        "written here",
        "Louis XVI fut guillotiné en 1793.",
        "Louis seize fut guillotiné en mille sept cent quatre-vingt-treize.",
    ),
    (
        "novel",
        "written here",
        "Elle est née le 15/04/1990.",
        "Elle est née le quinze avril mille neuf cent quatre-vingt-dix.",
    ),
    ("novel", "written here", "Il habitait au 3e étage.", "Il habitait au troisième étage."),
    ("invoice", "written here", "Solde : -45,00 €.", "Solde : moins quarante-cinq euros."),
    ("invoice", "written here", "TVA 20 %.", "TVA vingt pour cent."),
    ("invoice", "written here", "Elle a versé 1 000 €.", "Elle a versé mille euros."),
    ("invoice", "written here", "Il y a 2 pièces.", "Il y a deux pièces."),
    ("invoice", "written here", "La 2e relance est arrivée.", "La deuxième relance est arrivée."),
    (
        "recipe",
        S_C4S,
        "Il faut 5 cuillers à soupe de farine.",
        "Il faut cinq cuillers à soupe de farine.",
    ),
    ("recipe", S_C4S, "Ajoutez 1/2 sachet de levure.", "Ajoutez un demi-sachet de levure."),
    (
        "recipe",
        S_C4S,
        "Un moule de 13cm de diamètre suffit.",
        "Un moule de treize centimètres de diamètre suffit.",
    ),
    (
        "recipe",
        S_C4S,
        "Cuisson 30mn à 180°C.",
        "Cuisson trente minutes à cent quatre-vingts degrés Celsius.",
    ),
    (
        "recipe",
        S_APF,
        "Prenez 5 c. à s. bombées de farine.",
        "Prenez cinq cuillères à soupe bombées de farine.",
    ),
    (
        "recipe",
        S_APF,
        "Versez ensuite 3 c. à s. de lait.",
        "Versez ensuite trois cuillères à soupe de lait.",
    ),
    (
        "recipe",
        S_APF,
        "Il reste 0,5 sachet de levure.",
        "Il reste zéro virgule cinq sachet de levure.",
    ),
    (
        "recipe",
        S_APF,
        "Parfumez avec 1 c. à c. d'extrait de vanille.",
        "Parfumez avec une cuillère à café d'extrait de vanille.",
    ),
    ("recipe", S_APF, "Salez avec 1 pincée de sel.", "Salez avec une pincée de sel."),
    (
        "recipe",
        S_APF,
        "Beurrez un moule à manqué de 18 cm.",
        "Beurrez un moule à manqué de dix-huit centimètres.",
    ),
    (
        "recipe",
        S_APF,
        "Le four chauffe à 180°C (thermostat 6).",
        "Le four chauffe à cent quatre-vingts degrés Celsius (thermostat six).",
    ),
    ("recipe", S_APF, "De quoi servir 6 à 8 parts.", "De quoi servir six à huit parts."),
    (
        "recipe",
        S_APF,
        "On l'appelle le gâteau 5-4-3-2-1.",
        "On l'appelle le gâteau cinq quatre trois deux un.",
    ),
    (
        "recipe",
        S_SUSHI,
        "Comptez 1,5 cuillères à café de levure chimique.",
        "Comptez un virgule cinq cuillères à café de levure chimique.",
    ),
    (
        "recipe",
        S_SUSHI,
        "Il cuit en 35 minutes dans un four à 180°C.",
        "Il cuit en trente-cinq minutes dans un four à cent quatre-vingts degrés Celsius.",
    ),
    ("recipe", S_SUSHI, "La pâte demande 6 œufs.", "La pâte demande six œufs."),
    (
        "recipe",
        S_EASY,
        "J'ai mis 100g de beurre ramolli.",
        "J'ai mis cent grammes de beurre ramolli.",
    ),
    ("recipe", S_EASY, "Ajoutez 2cs de lait.", "Ajoutez deux cuillères à soupe de lait."),
    (
        "recipe",
        S_EASY,
        "Le four est préchauffé à 180° pour 40 minutes.",
        "Le four est préchauffé à cent quatre-vingts degrés pour quarante minutes.",
    ),
    (
        "recipe",
        S_EASY,
        "Un moule en étoiles de 12 portions.",
        "Un moule en étoiles de douze portions.",
    ),
    (
        "recipe",
        S_FAERY,
        "Prenez 1 yaourt de soja (125 gr).",
        "Prenez un yaourt de soja (cent vingt-cinq grammes).",
    ),
    (
        "recipe",
        S_FAERY,
        "Parsemez 5 C.S. de noix de coco.",
        "Parsemez cinq cuillères à soupe de noix de coco.",
    ),
    (
        "recipe",
        S_FAERY,
        "Ajoutez 1/2 c.c. rase de bicarbonate.",
        "Ajoutez une demi-cuillère à café rase de bicarbonate.",
    ),
    (
        "recipe",
        S_PAPER,
        "Le village compte 86 habitants.",
        "Le village compte quatre-vingt-six habitants.",
    ),
    (
        "recipe",
        S_PAPER,
        "Un pot suffit (20 cl dit la recette).",
        "Un pot suffit (vingt centilitres dit la recette).",
    ),
    (
        "news",
        S_AIR,
        "Les ventes s'établissent à 27 608 millions d'euros.",
        "Les ventes s'établissent à vingt-sept mille six cent huit millions d'euros.",
    ),
    (
        "news",
        S_AIR,
        "La croissance est de + 3,7 % sur un an.",
        "La croissance est de plus trois virgule sept pour cent sur un an.",
    ),
    (
        "news",
        S_AIR,
        "Les ventes publiées sont en baisse de - 7,8 %.",
        "Les ventes publiées sont en baisse de moins sept virgule huit pour cent.",
    ),
    (
        "news",
        S_LISI,
        "Le chiffre d'affaires s'élève à 1 630,4 ME.",
        "Le chiffre d'affaires s'élève à mille six cent trente virgule quatre millions d'euros.",
    ),
    (
        "news",
        S_CAP,
        "Le conseil propose 3,40 euros par action.",
        "Le conseil propose trois euros quarante par action.",
    ),
    (
        "news",
        S_CAP,
        "Paris, le 14 février 2024.",
        "Paris, le quatorze février deux mille vingt-quatre.",
    ),
    (
        "news",
        S_CAP,
        "L'exercice est clos le 31 décembre 2023.",
        "L'exercice est clos le trente et un décembre deux mille vingt-trois.",
    ),
    (
        "news",
        S_CAP,
        "La croissance a ralenti au 4ème trimestre.",
        "La croissance a ralenti au quatrième trimestre.",
    ),
    (
        "news",
        S_CAPI,
        "Une bonne performance au 1er semestre.",
        "Une bonne performance au premier semestre.",
    ),
    (
        "news",
        S_CAPI,
        "Un plan de 2 milliards d'euros sur 3 ans.",
        "Un plan de deux milliards d'euros sur trois ans.",
    ),
    (
        "news",
        S_CAPI,
        "Le flux de trésorerie est de -53 millions d'euros.",
        "Le flux de trésorerie est de moins cinquante-trois millions d'euros.",
    ),
    (
        "news",
        S_CAPI,
        "La marge gagne +20 points de base.",
        "La marge gagne plus vingt points de base.",
    ),
    (
        "news",
        S_HER,
        "Les ventes atteignent 13,4 Mds€.",
        "Les ventes atteignent treize virgule quatre milliards d'euros.",
    ),
    (
        "news",
        S_HER,
        "Le chiffre consolidé est de 13 427 M€.",
        "Le chiffre consolidé est de treize mille quatre cent vingt-sept millions d'euros.",
    ),
    (
        "news",
        S_HER,
        "Le résultat pèse 42,1 % des ventes.",
        "Le résultat pèse quarante-deux virgule un pour cent des ventes.",
    ),
    (
        "news",
        S_ALS,
        "La dépêche est tombée mercredi 24 janvier 2024 à 6h30.",
        "La dépêche est tombée mercredi vingt-quatre janvier deux mille vingt-quatre à six heures trente.",
    ),
    (
        "news",
        S_ALS,
        "Le trimestre court du 1er octobre au 31 décembre 2023.",
        "Le trimestre court du premier octobre au trente et un décembre deux mille vingt-trois.",
    ),
    (
        "news",
        S_ALS,
        "Le groupe a reçu 5,5 milliards d'euros de commandes.",
        "Le groupe a reçu cinq milliards et demi d'euros de commandes.",
    ),
    (
        "news",
        S_TOT,
        "Le résultat net atteint 6,6 G$.",
        "Le résultat net atteint six virgule six milliards de dollars.",
    ),
    ("news", S_TOT, "Le Nikkei 225 a progressé.", "Le Nikkei deux cent vingt-cinq a progressé."),
    (
        "news",
        S_TOT,
        "Le ratio est mesuré au 30 septembre 2022.",
        "Le ratio est mesuré au trente septembre deux mille vingt-deux.",
    ),
    (
        "sports",
        S_ASM,
        "La journée s'est jouée le 19/05/2024.",
        "La journée s'est jouée le dix-neuf mai deux mille vingt-quatre.",
    ),
    (
        "sports",
        S_ASM,
        "Dimanche à 21h, Metz (16e) recevait Paris.",
        "Dimanche à vingt et une heures, Metz (seizième) recevait Paris.",
    ),
    (
        "sports",
        S_ASM,
        "Le Paris S.G. (1er) a encore gagné.",
        "Le Paris S.G. (premier) a encore gagné.",
    ),
    (
        "sports",
        S_ASM,
        "Soler a ouvert le score (0-1, 7e).",
        "Soler a ouvert le score (zéro à un, septième).",
    ),
    (
        "sports",
        S_ASM,
        "Il fallait gagner avec 6 buts d'écart.",
        "Il fallait gagner avec six buts d'écart.",
    ),
    (
        "sports",
        S_ASM,
        "Le défenseur est entré à la 90e.",
        "Le défenseur est entré à la quatre-vingt-dixième.",
    ),
    ("sports", S_ASM, "Nice est assuré de rester 5e.", "Nice est assuré de rester cinquième."),
    (
        "sports",
        S_SOF17,
        "Score final : Lorient 1-1 Bordeaux.",
        "Score final : Lorient un à un Bordeaux.",
    ),
    (
        "sports",
        S_SOF17,
        "Rennes 2-3 Monaco, quel match.",
        "Rennes deux à trois Monaco, quel match.",
    ),
    ("sports", S_FM, "Monaco s'est imposé 2-0.", "Monaco s'est imposé deux à zéro."),
    (
        "sports",
        S_FM,
        "Minamino a ouvert le score (62e).",
        "Minamino a ouvert le score (soixante-deuxième).",
    ),
    (
        "sports",
        S_FM,
        "Monaco, 2e du championnat, est qualifié.",
        "Monaco, deuxième du championnat, est qualifié.",
    ),
    (
        "sports",
        S_FM,
        "Six équipes se tenaient en 5 points.",
        "Six équipes se tenaient en cinq points.",
    ),
    (
        "sports",
        S_E1,
        "C'était la 38e et dernière journée.",
        "C'était la trente-huitième et dernière journée.",
    ),
    (
        "sports",
        S_E1,
        "Monaco finit 3e (71pts).",
        "Monaco finit troisième (soixante et onze points).",
    ),
    (
        "sports",
        S_E1,
        "Score final : Marseille 3 - 0 Bastia.",
        "Score final : Marseille trois à zéro Bastia.",
    ),
    (
        "sports",
        S_IKEA,
        "Il a marqué à la 92e minute.",
        "Il a marqué à la quatre-vingt-douzième minute.",
    ),
    ("sports", S_IKEA, "À 22h11, Lille est revenu.", "À vingt-deux heures onze, Lille est revenu."),
    ("sports", S_IKEA, "Lala a inscrit le but du 3-0.", "Lala a inscrit le but du trois à zéro."),
    (
        "sports",
        S_SOFM,
        "Il est 23h00 : fin de la soirée.",
        "Il est vingt-trois heures : fin de la soirée.",
    ),
    (
        "sports",
        S_SOF38,
        "Nantes, en bon 13e de Ligue 1, a joué sans envie.",
        "Nantes, en bon treizième de Ligue un, a joué sans envie.",
    ),
    (
        "sports",
        S_SOF38,
        "Rolán a marqué deux fois (9e, 39e).",
        "Rolán a marqué deux fois (neuvième, trente-neuvième).",
    ),
    (
        "sports",
        S_KEL,
        "Ils ont marqué aux 88e et 94e minutes.",
        "Ils ont marqué aux quatre-vingt-huitième et quatre-vingt-quatorzième minutes.",
    ),
    (
        "sports",
        S_KEL,
        "Lyon (3e, 75 points) recule.",
        "Lyon (troisième, soixante-quinze points) recule.",
    ),
    (
        "sports",
        S_KEL,
        "C'est une défaite 3-2 pour Lyon.",
        "C'est une défaite trois à deux pour Lyon.",
    ),
    (
        "sports",
        S_KEL,
        "Il a transformé un pénalty à la 91e.",
        "Il a transformé un pénalty à la quatre-vingt-onzième.",
    ),
    (
        "timetable",
        S_ALSACE,
        "Les trains circulent entre 5h et 22h30.",
        "Les trains circulent entre cinq heures et vingt-deux heures trente.",
    ),
    (
        "timetable",
        S_ALSACE,
        "Arrivée à Strasbourg à 7h51 le matin.",
        "Arrivée à Strasbourg à sept heures cinquante et une le matin.",
    ),
    (
        "timetable",
        S_ALSACE,
        "Un départ à 17h33 le soir.",
        "Un départ à dix-sept heures trente-trois le soir.",
    ),
    ("timetable", S_ALSACE, "Ces 10 trains sont nouveaux.", "Ces dix trains sont nouveaux."),
    (
        "timetable",
        S_WIKI,
        "Le réseau mesure 570 km.",
        "Le réseau mesure cinq cent soixante-dix kilomètres.",
    ),
    (
        "timetable",
        S_WIKI,
        "L'écartement des rails est de 1 435 mm.",
        "L'écartement des rails est de mille quatre cent trente-cinq millimètres.",
    ),
    (
        "timetable",
        S_WIKI,
        "Les 95,15 % des trains étaient à l'heure.",
        "Les quatre-vingt-quinze virgule quinze pour cent des trains étaient à l'heure.",
    ),
    (
        "timetable",
        S_WIKI,
        "En 1960, le trafic était faible.",
        "En mille neuf cent soixante, le trafic était faible.",
    ),
    (
        "timetable",
        S_LYON,
        "La région est concernée à 71%.",
        "La région est concernée à soixante et onze pour cent.",
    ),
    (
        "timetable",
        S_LYON,
        "L'un des 1700 trains dont 1300 TER.",
        "L'un des mille sept cents trains dont mille trois cents TER.",
    ),
    (
        "timetable",
        S_LYON,
        "La saturation grimpera d'1% le soir.",
        "La saturation grimpera d'un pour cent le soir.",
    ),
    (
        "timetable",
        S_LYON,
        "Un trajet direct de 41 minutes.",
        "Un trajet direct de quarante et une minutes.",
    ),
    (
        "timetable",
        S_WORT,
        "Depuis ce mercredi 2 novembre, tout change.",
        "Depuis ce mercredi deux novembre, tout change.",
    ),
    ("timetable", S_WORT, "Le train partait à 6h03.", "Le train partait à six heures trois."),
    (
        "timetable",
        S_WORT,
        "Le 8h03 est avancé à 7h58.",
        "Le huit heures trois est avancé à sept heures cinquante-huit.",
    ),
    ("timetable", S_WORT, "Jusqu'au 10 décembre au moins.", "Jusqu'au dix décembre au moins."),
    (
        "timetable",
        S_PA,
        "Chacun des 15 000 trains roule tous les jours.",
        "Chacun des quinze mille trains roule tous les jours.",
    ),
    (
        "timetable",
        S_PA,
        "Une légère hausse de 1,6%.",
        "Une légère hausse d'un virgule six pour cent.",
    ),
    (
        "timetable",
        S_PA,
        "Avec 552 trains en semaine.",
        "Avec cinq cent cinquante-deux trains en semaine.",
    ),
    (
        "timetable",
        S_PA,
        "À partir du 2 janvier 2023.",
        "À partir du deux janvier deux mille vingt-trois.",
    ),
    (
        "timetable",
        S_CLE,
        "Version du 21/02/2018.",
        "Version du vingt et un février deux mille dix-huit.",
    ),
    (
        "timetable",
        S_CLE,
        "Le car circule du 30/04 au 04/05.",
        "Le car circule du trente avril au quatre mai.",
    ),
    (
        "timetable",
        S_CLE,
        "Départ de Clermont à 06:47.",
        "Départ de Clermont à six heures quarante-sept.",
    ),
    (
        "timetable",
        S_CLE,
        "Réservez avant 19h la veille.",
        "Réservez avant dix-neuf heures la veille.",
    ),
    (
        "timetable",
        S_LOR,
        "Valable du 7 janvier au 13 juillet 2019.",
        "Valable du sept janvier au treize juillet deux mille dix-neuf.",
    ),
    (
        "timetable",
        S_LOR,
        "Fermé du 10 au 24 février 2019.",
        "Fermé du dix au vingt-quatre février deux mille dix-neuf.",
    ),
    (
        "novel",
        S_LYS,
        "Le dauphin vient au monde le 5 Septembre 1638.",
        "Le dauphin vient au monde le cinq Septembre mille six cent trente-huit.",
    ),
    (
        "novel",
        S_LYS,
        "Ses parents, Louis XIII et Anne, attendaient.",
        "Ses parents, Louis treize et Anne, attendaient.",
    ),
    (
        "novel",
        S_LYS,
        "Le couple attendait depuis plus de 22 ans.",
        "Le couple attendait depuis plus de vingt-deux ans.",
    ),
    (
        "novel",
        S_AUDIO,
        "Après les pestes de 1605 et 1606, Henri IV décida.",
        "Après les pestes de mille six cent cinq et mille six cent six, Henri quatre décida.",
    ),
    (
        "novel",
        S_CRCV,
        "Le colloque du 31 mai, 1er et 2 juin 2012.",
        "Le colloque du trente et un mai, premier et deux juin deux mille douze.",
    ),
    (
        "novel",
        S_CRCV,
        "Entre 1793 et 1811, tout a disparu.",
        "Entre mille sept cent quatre-vingt-treize et mille huit cent onze, tout a disparu.",
    ),
    (
        "novel",
        S_KIWIX,
        "Louis de France (1729-1765) fut dauphin.",
        "Louis de France (mille sept cent vingt-neuf à mille sept cent soixante-cinq) fut dauphin.",
    ),
    (
        "novel",
        S_KIWIX,
        "Il le resta (36 ans, 3 mois et 16 jours).",
        "Il le resta (trente-six ans, trois mois et seize jours).",
    ),
    (
        "novel",
        S_KIWIX,
        "Il est le père de Louis XVI, Louis XVIII et Charles X.",
        "Il est le père de Louis seize, Louis dix-huit et Charles dix.",
    ),
    ("novel", S_KIWIX, "Il s'est marié en 1725.", "Il s'est marié en mille sept cent vingt-cinq."),
    ("other", S_BDF, "Page : 1 sur 17", "Page : un sur dix-sept"),
    (
        "other",
        S_BDF,
        "Le siège est au 31 rue Notre Dame.",
        "Le siège est au trente et un rue Notre Dame.",
    ),
    ("other", S_BDF, "Depuis 200 ans la Banque est là.", "Depuis deux cents ans la Banque est là."),
    (
        "other",
        S_BDF,
        "Les visites ont lieu le samedi à 10 h 30.",
        "Les visites ont lieu le samedi à dix heures trente.",
    ),
    (
        "other",
        S_BDF,
        "Téléphone 01 44 54 19 30",
        "Téléphone zéro un quarante-quatre cinquante-quatre dix-neuf trente",
    ),
    (
        "other",
        S_BDF,
        "Les samedis 12 janvier, 9 mars et 4 mai.",
        "Les samedis douze janvier, neuf mars et quatre mai.",
    ),
    (
        "novel",
        S_BDF,
        "L'enceinte de Charles V fut détruite.",
        "L'enceinte de Charles cinq fut détruite.",
    ),
    (
        "novel",
        S_COSMO,
        "Il est né à Paris le 14 mai 1601.",
        "Il est né à Paris le quatorze mai mille six cent un.",
    ),
    (
        "novel",
        S_COSMO,
        "Son médecin l'a saigné 47 fois.",
        "Son médecin l'a saigné quarante-sept fois.",
    ),
    (
        "novel",
        S_COSMO,
        "On compta 212 drogues et 215 lavements.",
        "On compta deux cent douze drogues et deux cent quinze lavements.",
    ),
    (
        "novel",
        S_COSMO,
        "Il soupirait pour Mme de Hautefort.",
        "Il soupirait pour Madame de Hautefort.",
    ),
    (
        "novel",
        S_COSMO,
        "On le disait épris de Mlle de La Fayette.",
        "On le disait épris de Mademoiselle de La Fayette.",
    ),
    (
        "novel",
        S_COSMO,
        "Cela se passait au XVIIe siècle.",
        "Cela se passait au dix-septième siècle.",
    ),
    (
        "novel",
        S_YOU,
        "Le roi meurt le 1er septembre 1715.",
        "Le roi meurt le premier septembre mille sept cent quinze.",
    ),
    ("novel", S_YOU, "Nombre de pages : 384", "Nombre de pages : trois cent quatre-vingt-quatre"),
    (
        "novel",
        S_YOU,
        "Il a paru le jeudi 27 août 2015.",
        "Il a paru le jeudi vingt-sept août deux mille quinze.",
    ),
    (
        "novel",
        S_YOU,
        "Son code EAN est 9782072297311.",
        "Son code EAN est neuf sept huit deux zéro sept deux deux neuf sept trois un un.",
    ),
    (
        "novel",
        S_MOL,
        "Le livre couvre le règne (1661-1715).",
        "Le livre couvre le règne (mille six cent soixante et un à mille sept cent quinze).",
    ),
    ("invoice", S_MOL, "Il coûte 9,50 €.", "Il coûte neuf euros et cinquante centimes."),
    (
        "invoice",
        S_FACTU,
        "Le prestataire est au 100 rue des Beauxjours.",
        "Le prestataire est au cent rue des Beauxjours.",
    ),
    (
        "invoice",
        S_FACTU,
        "Appelez le 01 23 45 67 89.",
        "Appelez le zéro un vingt-trois quarante-cinq soixante-sept quatre-vingt-neuf.",
    ),
    (
        "invoice",
        S_FACTU,
        "Facture du 23 septembre 2015.",
        "Facture du vingt-trois septembre deux mille quinze.",
    ),
    ("invoice", S_FACTU, "Délai de paiement : 30 jours.", "Délai de paiement : trente jours."),
    (
        "invoice",
        S_FACTU,
        "Deux théières à 200 € font 400 €.",
        "Deux théières à deux cents euros font quatre cents euros.",
    ),
    ("invoice", S_FACTU, "Total HT : 35€", "Total hors taxes : trente-cinq euros"),
    ("invoice", S_FACTU, "Taux de TVA : 20%", "Taux de TVA : vingt pour cent"),
    (
        "invoice",
        S_FACTU,
        "Pénalité : 40 € plus 1,5% de la facture.",
        "Pénalité : quarante euros plus un virgule cinq pour cent de la facture.",
    ),
    ("invoice", S_AJ, "Voir la note n° 10.", "Voir la note numéro dix."),
    ("invoice", S_COMEXA, "Note du 30/08/2022.", "Note du trente août deux mille vingt-deux."),
    (
        "invoice",
        S_SP,
        "Vérifié le 23 janvier 2020.",
        "Vérifié le vingt-trois janvier deux mille vingt.",
    ),
    ("other", S_MART, "Un arbre de 15 mètres de hauteur.", "Un arbre de quinze mètres de hauteur."),
    (
        "other",
        S_MART,
        "On le taille à environ 2,5 mètres.",
        "On le taille à environ deux virgule cinq mètres.",
    ),
    (
        "other",
        S_MART,
        "Il pousse jusqu'à environ 700 m d'altitude.",
        "Il pousse jusqu'à environ sept cents mètres d'altitude.",
    ),
    (
        "recipe",
        S_JEANNE,
        "Comptez 10 à 12 g pour la farine.",
        "Comptez dix à douze grammes pour la farine.",
    ),
    (
        "recipe",
        S_RAPIDE,
        "Comptez 1 cuillère à soupe rase, soit 15 ml.",
        "Comptez une cuillère à soupe rase, soit quinze millilitres.",
    ),
    (
        "recipe",
        S_RAPIDE,
        "Un pot de yaourt (125g) sert de doseur.",
        "Un pot de yaourt (cent vingt-cinq grammes) sert de doseur.",
    ),
    (
        "recipe",
        S_RAPIDE,
        "Un verre contient 200 à 250 ml.",
        "Un verre contient deux cents à deux cent cinquante millilitres.",
    ),
    (
        "recipe",
        S_PG,
        "La cuillère anglaise fait 4,4 millilitres.",
        "La cuillère anglaise fait quatre virgule quatre millilitres.",
    ),
    (
        "recipe",
        S_CABANE,
        "Cela fait 0,17 once liquide.",
        "Cela fait zéro virgule dix-sept once liquide.",
    ),
    ("other", S_AMAP, "Il a fait 400 km à vélo.", "Il a fait quatre cents kilomètres à vélo."),
    (
        "recipe",
        S_DELICES,
        "Ce plat est prévu pour 1 personne.",
        "Ce plat est prévu pour une personne.",
    ),
    (
        "news",
        S_POP,
        "Population totale : 1 577 059",
        "Population totale : un million cinq cent soixante-dix-sept mille cinquante-neuf",
    ),
    (
        "news",
        S_SUISSE,
        "Une hausse de 44'000 habitants.",
        "Une hausse de quarante-quatre mille habitants.",
    ),
    (
        "news",
        S_SUISSE,
        "Entre 50'000 et 58'000 personnes de plus.",
        "Entre cinquante mille et cinquante-huit mille personnes de plus.",
    ),
    (
        "news",
        S_LYCAP,
        "Dans le N°174 du 3 au 9 juin 1998.",
        "Dans le numéro cent soixante-quatorze du trois au neuf juin mille neuf cent quatre-vingt-dix-huit.",
    ),
    (
        "news",
        S_LYCAP,
        "Il vous reste 76 % de l'article.",
        "Il vous reste soixante-seize pour cent de l'article.",
    ),
    (
        "news",
        S_20MIN,
        "Les années 1980 font toujours danser.",
        "Les années mille neuf cent quatre-vingt font toujours danser.",
    ),
    (
        "other",
        S_HIFI,
        "Dans les années 80, tout a changé.",
        "Dans les années quatre-vingt, tout a changé.",
    ),
    (
        "sports",
        S_SOIR,
        "Nadal a gagné en trois sets 6-0, 6-2, 7-5.",
        "Nadal a gagné en trois sets six à zéro, six à deux, sept à cinq.",
    ),
    (
        "sports",
        S_SOIR,
        "Le match a duré 2h41 de jeu.",
        "Le match a duré deux heures quarante et une de jeu.",
    ),
    (
        "sports",
        S_SOIR,
        "Ce 56e duel fut plus accroché.",
        "Ce cinquante-sixième duel fut plus accroché.",
    ),
    (
        "sports",
        S_SOIR,
        "C'est la 100e du Taureau de Manacor.",
        "C'est la centième du Taureau de Manacor.",
    ),
    ("sports", S_E1TEN, "Elle était tête de série n°8.", "Elle était tête de série numéro huit."),
    (
        "sports",
        S_E1TEN,
        "Son adversaire, 38ème au classement WTA, a cédé.",
        "Son adversaire, trente-huitième au classement WTA, a cédé.",
    ),
    (
        "sports",
        S_SYMP,
        "Il a vaincu Murray 3-6, 6-1, 6-2 et 6-4.",
        "Il a vaincu Murray trois à six, six à un, six à deux et six à quatre.",
    ),
    (
        "sports",
        S_SYMP,
        "Il obtient un 12e titre du grand chelem.",
        "Il obtient un douzième titre du grand chelem.",
    ),
    (
        "sports",
        S_SYMP,
        "Budge, en 1938, et Laver en 1962 et 1969 y étaient arrivés.",
        "Budge, en mille neuf cent trente-huit, et Laver en mille neuf cent soixante-deux et mille neuf cent soixante-neuf y étaient arrivés.",
    ),
    (
        "sports",
        S_SYMP,
        "Elles ont battu les Russes 6-3, 2-6, 6-4.",
        "Elles ont battu les Russes six à trois, deux à six, six à quatre.",
    ),
    (
        "sports",
        S_TDF15,
        "Le vainqueur a mis 5 h 28 min 58 s.",
        "Le vainqueur a mis cinq heures vingt-huit minutes cinquante-huit secondes.",
    ),
    ("sports", S_TDF15, "Le deuxième est à + 3 s.", "Le deuxième est à plus trois secondes."),
    (
        "sports",
        S_TDF15,
        "Le maillot vert compte 84 pts.",
        "Le maillot vert compte quatre-vingt-quatre points.",
    ),
    (
        "sports",
        S_TDF15,
        "Une côte de 2 km à 4,8 %, classée en 4e catégorie.",
        "Une côte de deux kilomètres à quatre virgule huit pour cent, classée en quatrième catégorie.",
    ),
    (
        "sports",
        S_TDF15,
        "Sept secteurs pavés font 13,3 km.",
        "Sept secteurs pavés font treize virgule trois kilomètres.",
    ),
    (
        "sports",
        S_TDF17,
        "Vitesse moyenne : 42,361 km/h.",
        "Vitesse moyenne : quarante-deux virgule trois cent soixante et un kilomètres heure.",
    ),
    (
        "sports",
        S_TDF17,
        "L'étape du 4 juillet 2017 faisait 207,5 km.",
        "L'étape du quatre juillet deux mille dix-sept faisait deux cent sept virgule cinq kilomètres.",
    ),
    (
        "sports",
        S_TDF24,
        "Un tracé long de 139,6 kilomètres.",
        "Un tracé long de cent trente-neuf virgule six kilomètres.",
    ),
    (
        "sports",
        S_TDF24,
        "Un sprint intermédiaire dès le 19e kilomètre.",
        "Un sprint intermédiaire dès le dix-neuvième kilomètre.",
    ),
    (
        "sports",
        S_TDF24,
        "Le col culmine à 2 642 mètres d'altitude.",
        "Le col culmine à deux mille six cent quarante-deux mètres d'altitude.",
    ),
    (
        "sports",
        S_TDF24,
        "Une montée de 39,9 km à 3,7 %.",
        "Une montée de trente-neuf virgule neuf kilomètres à trois virgule sept pour cent.",
    ),
    (
        "sports",
        S_RTL,
        "Le Club Jalabert du 04/07/2017 commence.",
        "Le Club Jalabert du quatre juillet deux mille dix-sept commence.",
    ),
    (
        "sports",
        S_RTL,
        "Pour sa 3e participation, à 25 ans, il gagne.",
        "Pour sa troisième participation, à vingt-cinq ans, il gagne.",
    ),
    (
        "sports",
        S_RTL,
        "C'est sa 9e victoire de la saison.",
        "C'est sa neuvième victoire de la saison.",
    ),
    (
        "sports",
        S_RTL,
        "Vers 17h12, victoire au sprint.",
        "Vers dix-sept heures douze, victoire au sprint.",
    ),
    ("sports", S_RTL, "Il tombe aux 1400 mètres.", "Il tombe aux mille quatre cents mètres."),
    (
        "sports",
        S_LGB,
        "Un coureur roulait alors à 54,5 km/h !",
        "Un coureur roulait alors à cinquante-quatre virgule cinq kilomètres heure !",
    ),
    (
        "sports",
        S_LGB,
        "Il avait gagné la 2ème étape à Liège.",
        "Il avait gagné la deuxième étape à Liège.",
    ),
    (
        "news",
        S_CELLE,
        "Des rafales de vents (80 km/h) sont prévues.",
        "Des rafales de vents (quatre-vingts kilomètres heure) sont prévues.",
    ),
    (
        "news",
        S_CELLE,
        "Les cumuls de pluie peuvent atteindre 40 mm.",
        "Les cumuls de pluie peuvent atteindre quarante millimètres.",
    ),
    (
        "news",
        S_CELLE,
        "L'alerte est maintenue jusqu'à 22H.",
        "L'alerte est maintenue jusqu'à vingt-deux heures.",
    ),
    (
        "news",
        S_JMM,
        "On relevait 34°C à Toulouse à 15h45 ce mardi.",
        "On relevait trente-quatre degrés Celsius à Toulouse à quinze heures quarante-cinq ce mardi.",
    ),
    (
        "news",
        S_JMM,
        "Les minimales restent supérieures à 20°C.",
        "Les minimales restent supérieures à vingt degrés Celsius.",
    ),
    (
        "news",
        S_JMM,
        "Pour mardi 24 juin 2025, deux départements sont en alerte.",
        "Pour mardi vingt-quatre juin deux mille vingt-cinq, deux départements sont en alerte.",
    ),
    (
        "news",
        S_MCONS,
        "La fiabilité est évaluée à 85%.",
        "La fiabilité est évaluée à quatre-vingt-cinq pour cent.",
    ),
    (
        "news",
        S_MCONS,
        "Les températures seront comprises entre 7 et 8°C.",
        "Les températures seront comprises entre sept et huit degrés Celsius.",
    ),
    (
        "news",
        S_EDITO,
        "Le vent soufflera de 60 à 70 km/h.",
        "Le vent soufflera de soixante à soixante-dix kilomètres heure.",
    ),
    (
        "news",
        S_EDITO,
        "Au lever du jour, il fera de 14°C à 23°C.",
        "Au lever du jour, il fera de quatorze degrés Celsius à vingt-trois degrés Celsius.",
    ),
    (
        "news",
        S_LINT,
        "On attend 30 à 50 mm par endroits.",
        "On attend trente à cinquante millimètres par endroits.",
    ),
    (
        "news",
        S_LINT,
        "Les maximales atteignent 36 à 38°C.",
        "Les maximales atteignent trente-six à trente-huit degrés Celsius.",
    ),
    (
        "news",
        S_HUFF,
        "Les minimales iront de 12 à 16 degrés.",
        "Les minimales iront de douze à seize degrés.",
    ),
    (
        "recipe",
        S_MDV,
        "Il faut 500g de farine et 5 œufs.",
        "Il faut cinq cents grammes de farine et cinq œufs.",
    ),
    ("recipe", S_MDV, "Versez 1l de lait petit à petit.", "Versez un litre de lait petit à petit."),
    (
        "recipe",
        S_OMNI,
        "Pour une personne, 15 cl de lait et 80 g de farine.",
        "Pour une personne, quinze centilitres de lait et quatre-vingts grammes de farine.",
    ),
    (
        "recipe",
        S_OMNI,
        "Ajoutez 1 cuiller à soupe d'huile.",
        "Ajoutez une cuiller à soupe d'huile.",
    ),
    (
        "recipe",
        S_HUFFC,
        "Il faut 1/2 litre de lait demi-écrémé.",
        "Il faut un demi-litre de lait demi-écrémé.",
    ),
    (
        "recipe",
        S_HUFFC,
        "Mélangez 140 g de sucre et 60 g de beurre fondu.",
        "Mélangez cent quarante grammes de sucre et soixante grammes de beurre fondu.",
    ),
    (
        "recipe",
        S_HUFFC,
        "Ajoutez 20 cl d'eau puis 80 cl de lait.",
        "Ajoutez vingt centilitres d'eau puis quatre-vingts centilitres de lait.",
    ),
    (
        "recipe",
        S_PAPIL,
        "Pesez 250 grammes de farine.",
        "Pesez deux cent cinquante grammes de farine.",
    ),
    ("recipe", S_PAPIL, "Versez 500 ml de lait.", "Versez cinq cents millilitres de lait."),
    (
        "recipe",
        S_PAPIL,
        "Parfumez avec 1 bouchon de rhum brun.",
        "Parfumez avec un bouchon de rhum brun.",
    ),
    (
        "recipe",
        S_BERLIN,
        "Le 2 février, c'est la Chandeleur.",
        "Le deux février, c'est la Chandeleur.",
    ),
    (
        "recipe",
        S_BERLIN,
        "Une assiette à dessert de 15-18cm suffit.",
        "Une assiette à dessert de quinze à dix-huit centimètres suffit.",
    ),
    (
        "novel",
        S_PARINFO,
        "Il parie 20 000 livres avec son club.",
        "Il parie vingt mille livres avec son club.",
    ),
    (
        "novel",
        S_PARINFO,
        "C'est aujourd'hui mercredi 2 octobre, dit-il.",
        "C'est aujourd'hui mercredi deux octobre, dit-il.",
    ),
    ("novel", S_PARINFO, "Le délai de 80 jours expire.", "Le délai de quatre-vingts jours expire."),
    (
        "novel",
        S_LEGIMI,
        "Il habitait la maison portant le numéro 7.",
        "Il habitait la maison portant le numéro sept.",
    ),
    (
        "novel",
        S_LEGIMI,
        "Sheridan y mourut en 1814.",
        "Sheridan y mourut en mille huit cent quatorze.",
    ),
    (
        "novel",
        S_99EB,
        "Le voyage prendrait 80 jours, soit 1 920 heures.",
        "Le voyage prendrait quatre-vingts jours, soit mille neuf cent vingt heures.",
    ),
    (
        "novel",
        S_99EB,
        "Ils partent le 2 octobre 1871.",
        "Ils partent le deux octobre mille huit cent soixante et onze.",
    ),
    (
        "news",
        S_MAGH,
        "Il est élu pape le 19 avril 2005.",
        "Il est élu pape le dix-neuf avril deux mille cinq.",
    ),
    (
        "news",
        S_MAGH,
        "Le pontificat de Victor II prit fin en 1057.",
        "Le pontificat de Victor deux prit fin en mille cinquante-sept.",
    ),
    (
        "news",
        S_MAGH,
        "Sa renonciation sera effective le 28 février suivant.",
        "Sa renonciation sera effective le vingt-huit février suivant.",
    ),
    (
        "news",
        S_WIKIMINI,
        "Il dirigeait 1,2 milliard de catholiques.",
        "Il dirigeait un virgule deux milliard de catholiques.",
    ),
    (
        "news",
        S_WIKIMINI,
        "Grégoire XII régnait au début du XVe siècle.",
        "Grégoire douze régnait au début du quinzième siècle.",
    ),
    (
        "news",
        S_LAROUSSE,
        "Archevêque de Munich (1977-1981), il fut créé cardinal.",
        "Archevêque de Munich (mille neuf cent soixante-dix-sept à mille neuf cent quatre-vingt-un), il fut créé cardinal.",
    ),
    (
        "news",
        S_LAROUSSE,
        "Un conclave de 115 cardinaux l'a élu au 4e tour de scrutin.",
        "Un conclave de cent quinze cardinaux l'a élu au quatrième tour de scrutin.",
    ),
    (
        "news",
        S_MOLLAT,
        "Il fut le 265e pape de l’Eglise catholique.",
        "Il fut le deux cent soixante-cinquième pape de l’Eglise catholique.",
    ),
    ("news", S_MOLLAT, "Il y restera 23 ans.", "Il y restera vingt-trois ans."),
    (
        "news",
        S_FINTER,
        "Les 577 députés siégeront cinq ans.",
        "Les cinq cent soixante-dix-sept députés siégeront cinq ans.",
    ),
    (
        "news",
        S_FINTER,
        "L'abstention a atteint 51,29% des inscrits.",
        "L'abstention a atteint cinquante et un virgule vingt-neuf pour cent des inscrits.",
    ),
    (
        "news",
        S_FINTER,
        "Le second tour avait lieu ce dimanche 18 juin.",
        "Le second tour avait lieu ce dimanche dix-huit juin.",
    ),
    (
        "news",
        S_LINT17,
        "Une majorité de 350 sièges, dont 308 pour un seul parti.",
        "Une majorité de trois cent cinquante sièges, dont trois cent huit pour un seul parti.",
    ),
    (
        "timetable",
        S_KIWGL,
        "La gare est dans le 12e arrondissement.",
        "La gare est dans le douzième arrondissement.",
    ),
    (
        "timetable",
        S_KIWGL,
        "Elle a vu passer 109,9 millions de voyageurs en 2018.",
        "Elle a vu passer cent neuf virgule neuf millions de voyageurs en deux mille dix-huit.",
    ),
    (
        "news",
        S_LITANIE,
        "Il est né le 18 mai 1920 à Wadowice.",
        "Il est né le dix-huit mai mille neuf cent vingt à Wadowice.",
    ),
    (
        "news",
        S_LITANIE,
        "Il fut le 264e pape, de 1978 à 2005.",
        "Il fut le deux cent soixante-quatrième pape, de mille neuf cent soixante-dix-huit à deux mille cinq.",
    ),
    (
        "news",
        S_LITANIE,
        "Il a effectué 104 voyages et visité 129 pays.",
        "Il a effectué cent quatre voyages et visité cent vingt-neuf pays.",
    ),
    (
        "news",
        S_LITANIE,
        "C'était le premier pape non italien depuis plus de 450 ans.",
        "C'était le premier pape non italien depuis plus de quatre cent cinquante ans.",
    ),
    (
        "news",
        S_LITANIE,
        "Il a été canonisé le 27 avril 2014.",
        "Il a été canonisé le vingt-sept avril deux mille quatorze.",
    ),
    (
        "news",
        S_EVANG,
        "Il fut élu le 16 octobre 1978.",
        "Il fut élu le seize octobre mille neuf cent soixante-dix-huit.",
    ),
    (
        "news",
        S_QQC,
        "Décès : 2 avril 2005 (à 84 ans)",
        "Décès : deux avril deux mille cinq (à quatre-vingt-quatre ans)",
    ),
    (
        "news",
        S_QQC,
        "Il a été béatifié le 1er mai 2011 par Benoît XVI.",
        "Il a été béatifié le premier mai deux mille onze par Benoît seize.",
    ),
    (
        "novel",
        S_AYGULF,
        "Il fut nommé évêque par le pape Pie XII.",
        "Il fut nommé évêque par le pape Pie douze.",
    ),
    (
        "novel",
        S_AYGULF,
        "C'était le premier étranger depuis Adrien VI, en 1522.",
        "C'était le premier étranger depuis Adrien six, en mille cinq cent vingt-deux.",
    ),
    (
        "novel",
        S_AYGULF,
        "Seul le bienheureux Pie IX régna plus longtemps.",
        "Seul le bienheureux Pie neuf régna plus longtemps.",
    ),
    (
        "novel",
        S_AYGULF,
        "L'attentat eut lieu le mercredi 13 mai 1981.",
        "L'attentat eut lieu le mercredi treize mai mille neuf cent quatre-vingt-un.",
    ),
    (
        "news",
        S_BOITE,
        "Le pape est décédé à 14h37, heure du Québec.",
        "Le pape est décédé à quatorze heures trente-sept, heure du Québec.",
    ),
    (
        "news",
        S_BOITE,
        "Âgé de 84 ans, il a guidé l’Église pendant 26 ans.",
        "Âgé de quatre-vingt-quatre ans, il a guidé l’Église pendant vingt-six ans.",
    ),
    (
        "news",
        S_BOITE,
        "Son état s’était aggravé au cours des dernières 24 heures.",
        "Son état s’était aggravé au cours des dernières vingt-quatre heures.",
    ),
    ("invoice", S_SECOB, "Publié le 08.11.2018.", "Publié le huit novembre deux mille dix-huit."),
    (
        "invoice",
        S_SECOB,
        "L'amende est de 15 € par mention manquante.",
        "L'amende est de quinze euros par mention manquante.",
    ),
    (
        "invoice",
        S_SECOB,
        "Pour un montant inférieur ou égal à 150 €, on peut l’omettre.",
        "Pour un montant inférieur ou égal à cent cinquante euros, on peut l’omettre.",
    ),
    (
        "invoice",
        S_SECOB,
        "L'indemnité forfaitaire de 40 € est due.",
        "L'indemnité forfaitaire de quarante euros est due.",
    ),
    (
        "invoice",
        S_WONDER,
        "L'intérêt de retard est égal à 3 fois le taux légal.",
        "L'intérêt de retard est égal à trois fois le taux légal.",
    ),
    (
        "invoice",
        S_WONDER,
        "La loi du 4 août 2008 le prévoit.",
        "La loi du quatre août deux mille huit le prévoit.",
    ),
    (
        "invoice",
        S_MOTAMOT,
        "La directive du 20 décembre 2001 fixe les mentions.",
        "La directive du vingt décembre deux mille un fixe les mentions.",
    ),
    (
        "invoice",
        S_MOTAMOT,
        "Le décret du 2 octobre 2012 fixe le montant.",
        "Le décret du deux octobre deux mille douze fixe le montant.",
    ),
    (
        "invoice",
        S_SALENGO,
        "Une indemnité est due en cas de retard (40 euros).",
        "Une indemnité est due en cas de retard (quarante euros).",
    ),
    (
        "invoice",
        S_EXPERTS,
        "Voir le BO 3 CA du 7 août 2003.",
        "Voir le BO trois CA du sept août deux mille trois.",
    ),
]
