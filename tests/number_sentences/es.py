"""Spanish sentences, written -> said, each spoken form checked by hand.

A row is (genre, source, written, said): genre is the kind of text (news, recipe, timetable,
sports, novel, invoice, other); source names where the number expression was seen as printed: the
address of a published page (the `S_` names below) whose number expression and the words that
govern its form the row keeps, the rest of the sentence being ours, or "written here" for rows
composed for this table."""

# Where the number expressions of the rows below were seen as printed.
S_VIDA = "https://vidaenpa.com/cake-delicioso-en-licuadora"
S_HSA = "https://www.huevossantaanita.com/deliciosos-brownies-para-una-tarde-en-familia/"
S_ALOJ = "https://alojillo.blogspot.com/2009/11/torta-roseta-o-bizcocho-facil.html"
S_NENA = "http://lasrecetasdelanena.blogspot.com/2012/02/bizcocho-de-naranja.html?m=0"
S_BLANCA = "http://lasrecetasdeblancacotta.blogspot.com/2011/11/torta-de-vainilla-y-limon.html?m=0"
S_BABOVKA = (
    "http://hoyinvitoyoenlaradio.blogspot.com/2011/12/babovka-un-dulce-con-larga-tradicion.html"
)
S_JUGANDO = "https://jugandoconfogones.es/receta-de-salsa-lactonesa-con-ajo-ali-oli-sin-huevo/"
S_NISI = "http://nisi501.blogspot.com/2013/08/leche-yogur.html"
S_PLEN = "https://enplenitud.com/cursos/salsas-cocina_18.asp"
S_JVAS = "http://jvasquezs.blogspot.com/2010_10_17_archive.html"
S_ABUELA = "https://quebonitomibonito.blogspot.com/2014/05/el-bizcocho-de-la-abuela.html"
S_COCI = "https://www.cocinaria.app/guia-de-cocina"
S_KNOW = "https://knowunity.co/knows/matemticas-sistema-casero-de-medida-f86a6093-7fe2-43c4-b7f8-6e723087df0c"
S_VALN = "https://valencianoticias.com/cuanto-es-una-cucharadita-tabla-de-equivalencia-de-medidas-en-la-cocina"
S_BCN = "https://bcnsunset.blogspot.com/2012/05/como-calcular-las-cantidades-en-la.html"
S_MAPFRE = "https://hogar.mapfre.es/cocina/articulos/equivalencia-cucharada-sopera/amp"
S_UNIV = "https://www.univision.com/delicioso/la-cucharada-la-cucharadita-y-sus-variaciones"
S_ACX = "https://www.estrategiasdeinversion.com/actualidad/noticias/bolsa-espana/beneficio-neto-de-acerinox-crece-383-hasta-septiembre-n-4974"
S_ELESP = "https://www.elespanol.com/invertia/economia/macroeconomia/20240123/ventas-empresas-espanolas-estancan-facturacion-industria-cae-cifras-negativas/826917717_0.html"
S_RU24 = "https://ru24.net/foreign/es/380382871"
S_BMW = "https://candas365.es/noticias/bmw-aumento-su-facturacion-en-2023"
S_AZVI = (
    "https://ceys.org/azvi-ronda-los-1000-millones-de-facturacion-y-crece-al-40-por-segundo-ano"
)
S_DV = "https://www.diariovasco.com/economia/empresas/guipuzcoanas/ventas-empresas-gipuzkoa-crecieron-pasado-ano-20240213161759-nt_amp.html"
S_DM = (
    "http://www.diariodemallorca.es/cultura/2017/02/16/diez-canciones-creeras-40-anos/1190306.html"
)
S_MEDI = "https://www.elperiodicomediterraneo.com/noticias/espectaculos/union-rebeldes-frontera-agitan-nostalgicos-anos-80_1252037.html"
S_INSULA = "https://insulabaranaria.com/tag/novela-por-entregas/"
S_UNO = "https://diariouno.pe/2025/12/14/real-madrid-supero-al-alaves-2-1-con-goles-de-mbappe-y-rodrygo-corto-dos-derrotas-seguidas/"
S_GRADA = "https://www.lagradaonline.com/laliga-jornada-10-resultados-clasificacion-partidos-espanyol-elche-domingo"
S_OK1 = "https://okdiario.com/deportes/asi-queda-clasificacion-liga-victoria-del-barcelona-rayo-vallecano-14303001/amp"
S_OK2 = (
    "https://okdiario.com/deportes/asi-queda-clasificacion-liga-victoria-del-barcelona-5750394/amp"
)
S_NOTICEL = "https://noticel.com/deportes/20120505/messi-llega-a-50-goles-y-el-valencia-asegura-el-tercer-puesto"
S_ULTIMA = "https://ultimajugada.com/se-define-la-liga-de-espana-con-cordobeses-como-protagonistas/"
S_TRES = "https://kampuspedia.com/es/Línea_5_(Urbanos_de_Tres_Cantos)"
S_GETAFE = "https://getaferadio.com/2017/03/27/la-l-3-estrena-recorrido-circular/"
S_CUENCA = "https://www.lasnoticiasdecuenca.es/cuenca/autobuses-urbanos-retoman-este-lunes-horario-invierno-69412"
S_OVIEDO = "https://mioviedo.com/el-ayuntamiento-refuerza-este-domingo-el-transporte-entre-oviedo-y-parque-principado/"
S_FARO = "https://www.elfarodemalaga.es/index.php?id=ampliada&tx_ttnews%5Btt_news%5D=51418&cHash=12c0296cb64639188ffd73f33981123e"
S_N803 = "https://www.wikiwand.com/es/articles/L%C3%ADnea_N803_(Interurbanos_Madrid)"
S_TUS = "http://www.eldiariocantabria.es/articulo/cantabria/entran-funcionamiento-jueves-nuevos-parches-metro-tus-provocados-presion-popular/20180321205320042540.html"
S_TALA = "https://elespanol.com/eldigitalcastillalamancha/deportes/futbol/20200602/cf-talavera-afrontara-posible-conversion-sociedad-asamblea/494701991_0.html"
S_ARCH = "https://www.archiverosdeandalucia.org/nosotros/asamblea-general/"
S_LNW = "https://www.localnewswave.com/article/1048994482786496512"
S_IAI = "https://digital.iai.spk-berlin.de/viewer/fulltext/167894310X/59/"
S_GC = "https://revistas.grancanaria.com/index.php/cig/article/view/1964/2322"
S_TALES = "https://taleshunters.blogspot.com/2016/08/resena-felipe.html"
S_B965 = "https://books965.rssing.com/chan-8166782/article1074.html"
S_AREA = "http://arealibros.republica.com/biografias/felipe-heredero-del-mundo.html"
S_ALQ = "https://alqs2d.blogspot.com/2013/04/felipe-ii-la-biografia-definitiva.html?m=1"
S_NOST = "http://nostalgiaporlos80s.blogspot.com/2007/01"
S_IVA = "https://descuentodepagares10.com/tag/impuestos/"
S_POTOSI = "https://www.indexmundi.com/es/bolivia/potosi/poblacion.html"
S_ANTENA = "https://antenapais.com/2020/10/11/rafa-nadal-sigue-siendo-el-rey-de-paris-arraso-a-djokovic-y-gano-por-13o-vez-roland-garros/"
S_DIAADIA = "https://portal.diaadia.com.pa/archivo/06092008/dep30_print.html"
S_VIVES = "https://vives.futbol/110842"
S_DOMHOY = "https://dominicanoshoy.com/2013/06/10/otro-titulo-grande-para-rafael-nadal"
S_GUERRERO = "http://www.elmenudelguerrero.com/bizcocho-clasico/"
S_REPORTE = "https://www.reporteconfidencial.info/2021/04/19/bizcocho-3/"
S_COTI = "https://cotilleo.es/2021/03/04/bizcocho-esponjoso-con-tres-ingredientes-222914/4"
S_CADIZ = "https://cadiz.cosasdecome.es/receta/bizcocho-pesado/"
S_DULCE = "https://dulceysalados.blogspot.com/2015/04/congret.html"
S_PIT = "https://pitviral.com/el-bizcocho-perfecto-casero-esponjoso-versatil-y-delicioso/2"
S_VIVA = "https://vivaaljarafe.es/?a=683696&i=1"
S_ELDIARIO = "https://eldiario.es/sociedad/calor-lluvias-torrenciales-ocho-comunidades-alerta-tiempo_1_9203154.amp.html"
S_LOM = "https://www.laopiniondemurcia.es/comunidad/2022/07/11/murcia-tres-comunidades-salva-alerta-68198701.html"
S_FUENTES = "https://fuentesinformadas.com/espana-estara-en-alerta-amarilla-o-naranja-con-temperaturas-de-hasta-44oc-a-partir-del-miercoles"
S_A3 = "https://antena3.com/noticias/el-tiempo/la-prevision/miercoles-de-aviso-naranja-en-5-comunidades-por-temperaturas-de-hasta-41-grados_202007295f2124eabc7ad800016fcb3c.html"
S_24H = "https://24hmadrid.es/la-aemet-emite-alerta-naranja-por-altas-temperaturas-en-la-region-este-viernes-excepto-en-la-sierra-que-se-mantiene-en-nivel-amarillo"
S_A3B = "https://www.antena3.com/noticias/el-tiempo/la-prevision/ola-calor-despide-pero-aemet-alerta-llegada-lluvias-tormentas-fuertes-rachas-viento_2025081968a4a7175331f214bde79e07.html"
S_GOMERA = "https://gomeranoticias.com/?p=4882"
S_AZIZE = "https://azizeinforma.com/1580-2/"
S_RUNRUN = "https://runrun.es/internacional/241054/elecciones-en-espana-el-pp-gana-pero-sin-mayoria-con-45-de-votos-escrutado/"
S_LARAZON = "https://www.larazon.es/elecciones-generales/el-pp-vence-con-131-escanos-y-el-psoe-es-segundo-con-el-33-4-escrutado-DD13017361"
S_ELCIUD = "https://elciudadano.com/portada/triunfo-relativo-del-pp-y-fin-del-bipartidismo-en-las-elecciones-generales-en-espana/12/20"
S_DMALL = "http://www.diariodemallorca.es/elecciones/2015/12/20/resultados-elecciones-generales-2015/1080164.html"
S_MCN = "https://mcnbiografias.com/app-bio/do/alfonso-xiii-rey-de-espanna"
S_DEFIN = "https://definiciones-de.com/m/Definicion/de/alfonso_xiii.php"
S_RSMP = "https://rsmp.es/alfonso-xiii-de-espana-una-mirada-a-su-vida-y-su-legado"
S_CALZ = "https://calendarz.com/es/amp/on-this-day/february/28/alfonso-xiii-of-spain"
S_SERIUS = "https://seriusli.com/conceptos/la-factura-datos-de-cuantificacion"
S_ANDINF = "https://andaluciainforma.com/el-30-de-los-trenes-de-cercanias-sufrieron-retrasos-en-septiembre-promediando-111-minutos-de-demora"
S_NOTMAD = "https://noticias.madrid/adaptaciones-emergentes-como-la-inteligencia-artificial-evoluciona-en-un-mundo-en-constante-cambio"
S_KNOWL = "http://es.knowledger.de/1107353/CercaniasMadrid"
S_TRIB = "https://tribunaeconomica.com.mx/publicaciones/seccion/general/este-lunes-no-trabajaran-en-el-ayuntamiento-de-mexicali"
S_HOY = "https://navalmoral.hoy.es/ayuntamiento-recupera-atencion-20200610131714-nt_amp.html"
S_BOCM = "https://bocm.es/2009-06-02010620090241"
S_NGIP = "https://www.noticiasdegipuzkoa.eus/deportes/futbol/2021/04/11/real-madrid-gana-clasico-duerme/1102968.html"
S_HERALDO = "https://www.elheraldo.hn/deportes/tabla-de-posiciones-laliga-espana-real-madrid-gana-cerca-barcelona-ubicaciones-LJ29139002"
S_OK3 = "https://okdiario.com/deportes/asi-queda-clasificacion-liga-derrota-del-barcelona-contra-palmas-13905549/amp"
S_JMAYA = "https://www.lajornadamaya.mx/internacional/169786/real-madrid-lider-en-la-liga-tras-vencer-2-1-a-barcelona"
S_BERNA = "https://m.bernabeudigital.com/amp/noticias/clasificacion-el-real-madrid-despide-el-ano-colider-de-laliga-291686"
S_PRONTO = "https://pronto.es/noticias-del-corazon/el-rey-felipe-y-su-padre-juntos-en-el-tercer-aniversario-301896102_amp.html"
S_KIDDLE = "https://ninos.kiddle.co/Abdicaci%C3%B3n_de_Juan_Carlos_I"
S_DIEZ = "https://www.diezminutos.es/familia-real/monarquia-espanola/news/g5411/el-rey-anuncia-su-abdicacion-felipe-vi-y-letizia-los-nuevos-reyes"
S_MERCO = "https://es.mercopress.com/tags/rey-felipe-vi-coronacion"

ROWS = [
    (
        "news",
        "written here",
        "El Ibex 35 subió un 1,2 % el lunes.",
        "El Ibex treinta y cinco subió un uno coma dos por ciento el lunes.",
    ),
    (
        "news",
        "written here",
        "El gobierno invertirá 5 millones de euros.",
        "El gobierno invertirá cinco millones de euros.",
    ),
    (
        "news",
        "written here",
        "El 12 de octubre de 1492 llegaron.",
        "El doce de octubre de mil cuatrocientos noventa y dos llegaron.",
    ),
    (
        "news",
        "written here",
        "Murieron 21 personas en el accidente.",
        "Murieron veintiuna personas en el accidente.",
    ),
    (
        "news",
        "written here",
        "Votaron 200 mujeres y 301 hombres.",
        "Votaron doscientas mujeres y trescientos un hombres.",
    ),
    (
        "recipe",
        "written here",
        "Hornear a 180 °C durante 25 minutos.",
        "Hornear a ciento ochenta grados Celsius durante veinticinco minutos.",
    ),
    ("recipe", "written here", "Añadir 1 cucharada de azúcar.", "Añadir una cucharada de azúcar."),
    (
        "recipe",
        "written here",
        "Mezclar 250 g de harina con 1 huevo.",
        "Mezclar doscientos cincuenta gramos de harina con un huevo.",
    ),
    ("recipe", "written here", "Dejar reposar 1 hora.", "Dejar reposar una hora."),
    (
        "timetable",
        "written here",
        "El tren sale a las 22:30.",
        "El tren sale a las veintidós y treinta.",
    ),
    (
        "timetable",
        "written here",
        "Abrimos a la 1:15 y cerramos a las 21:00.",
        "Abrimos a la una y quince y cerramos a las veintiuna.",
    ),
    ("timetable", "written here", "Horario de 9-14 h.", "Horario de nueve a catorce horas."),
    ("sports", "written here", "El Madrid ganó 3-1.", "El Madrid ganó tres a uno."),
    ("sports", "written here", "Quedó en 1.er lugar.", "Quedó en primer lugar."),
    ("sports", "written here", "Es su 2.ª victoria.", "Es su segunda victoria."),
    ("novel", "written here", "Tenía 21 años.", "Tenía veintiún años."),
    ("novel", "written here", "Sr. García, ¿Ud. viene?", "Señor García, ¿Usted viene?"),
    ("novel", S_IAI, "Felipe II reinó en España.", "Felipe segundo reinó en España."),
    ("novel", "written here", "Vivía en el 3.º piso.", "Vivía en el tercer piso."),
    ("novel", "written here", "En los años 80 todo cambió.", "En los años ochenta todo cambió."),
    (
        "invoice",
        "written here",
        "Total: 1.250,50 €.",
        "Total: mil doscientos cincuenta euros con cincuenta céntimos.",
    ),
    ("invoice", "written here", "Factura núm. 45.", "Factura número cuarenta y cinco."),
    ("invoice", "written here", "Pagó $21 por el libro.", "Pagó veintiún dólares por el libro."),
    ("invoice", "written here", "Cuesta 1 dólar.", "Cuesta un dólar."),
    (
        "invoice",
        "written here",
        "La velocidad máxima es 120 km/h.",
        "La velocidad máxima es ciento veinte kilómetros por hora.",
    ),
    (
        "news",
        "written here",
        "El paro bajó al 12,3 %.",
        "El paro bajó al doce coma tres por ciento.",
    ),
    (
        "news",
        "written here",
        "El presupuesto es de 5 mil millones de euros.",
        "El presupuesto es de cinco mil millones de euros.",
    ),
    ("news", "written here", "El 1 de enero entra en vigor.", "El uno de enero entra en vigor."),
    ("news", "written here", "Llegaron 1.200 personas.", "Llegaron mil doscientas personas."),
    (
        "news",
        "written here",
        "La temperatura bajó a -2 °C.",
        "La temperatura bajó a menos dos grados Celsius.",
    ),
    ("news", "written here", "Hubo 31 víctimas.", "Hubo treinta y una víctimas."),
    ("recipe", "written here", "Cocer durante 20 min.", "Cocer durante veinte minutos."),
    ("recipe", "written here", "Añadir 1 cucharada de aceite.", "Añadir una cucharada de aceite."),
    (
        "recipe",
        "written here",
        "Batir 2 huevos con 3/4 de la leche.",
        "Batir dos huevos con tres cuartos de la leche.",
    ),
    ("recipe", "written here", "Usar 500 ml de caldo.", "Usar quinientos mililitros de caldo."),
    (
        "timetable",
        "written here",
        "El autobús sale a las 6:15.",
        "El autobús sale a las seis y quince.",
    ),
    (
        "timetable",
        "written here",
        "Abre a las 9:00 y cierra a las 14:00.",
        "Abre a las nueve y cierra a las catorce.",
    ),
    ("timetable", "written here", "Llega a la 1:05.", "Llega a la una y cinco."),
    ("sports", "written here", "España ganó 2-0.", "España ganó dos a cero."),
    (
        "sports",
        "written here",
        "Es la 21.ª edición del torneo.",
        "Es la vigésima primera edición del torneo.",
    ),
    (
        "sports",
        "written here",
        "Corrió los 100 m en 9,9 segundos.",
        "Corrió los cien metros en nueve coma nueve segundos.",
    ),
    ("sports", "written here", "Ganó 1 medalla de oro.", "Ganó una medalla de oro."),
    ("novel", "written here", "Tenía 1 hermana y 2 hermanos.", "Tenía una hermana y dos hermanos."),
    (
        "novel",
        "written here",
        "Alfonso XIII nació en 1886.",
        "Alfonso trece nació en mil ochocientos ochenta y seis.",
    ),
    (
        "novel",
        "written here",
        "Vivían en la calle Mayor, núm. 3.",
        "Vivían en la calle Mayor, número tres.",
    ),
    ("novel", "written here", "Llegó el 2.º día.", "Llegó el segundo día."),
    (
        "invoice",
        "written here",
        "Importe: 49,90 €.",
        "Importe: cuarenta y nueve euros con noventa céntimos.",
    ),
    (
        "invoice",
        "written here",
        "Pague antes del 15/03/2024.",
        "Pague antes del quince de marzo de dos mil veinticuatro.",
    ),
    ("invoice", "written here", "Entrega en 2-4 días.", "Entrega en dos a cuatro días."),
    ("invoice", "written here", "Son 21 libras.", "Son veintiuna libras."),
    (
        "news",
        "written here",
        "La inflación llegó al 8,4 % en 2022.",
        "La inflación llegó al ocho coma cuatro por ciento en dos mil veintidós.",
    ),
    (
        "news",
        "written here",
        "Viven 3 millones de personas en la ciudad.",
        "Viven tres millones de personas en la ciudad.",
    ),
    (
        "news",
        "written here",
        "El 20 de noviembre de 1975 murió Franco.",
        "El veinte de noviembre de mil novecientos setenta y cinco murió Franco.",
    ),
    (
        "news",
        "written here",
        "El déficit fue de 2.500 millones de euros.",
        "El déficit fue de dos mil quinientos millones de euros.",
    ),
    ("news", "written here", "Hay 21 heridos.", "Hay veintiún heridos."),
    (
        "recipe",
        "written here",
        "Hornear 45 min a 200 °C.",
        "Hornear cuarenta y cinco minutos a doscientos grados Celsius.",
    ),
    (
        "recipe",
        "written here",
        "Añadir 2 cucharadas de aceite.",
        "Añadir dos cucharadas de aceite.",
    ),
    ("recipe", "written here", "Cocer 1 kg de patatas.", "Cocer un kilogramo de patatas."),
    ("recipe", "written here", "Para 4-6 personas.", "Para cuatro a seis personas."),
    ("timetable", "written here", "El museo cierra a las 20:00.", "El museo cierra a las veinte."),
    (
        "timetable",
        "written here",
        "El vuelo sale a las 7:45.",
        "El vuelo sale a las siete y cuarenta y cinco.",
    ),
    ("timetable", "written here", "Atención de 9-14 h.", "Atención de nueve a catorce horas."),
    ("sports", "written here", "El Barça ganó 4-0.", "El Barça ganó cuatro a cero."),
    (
        "sports",
        "written here",
        "Quedó 3.º en la clasificación.",
        "Quedó tercero en la clasificación.",
    ),
    ("sports", "written here", "Saltó 2,35 m.", "Saltó dos coma treinta y cinco metros."),
    ("sports", "written here", "Fue su 1.ª medalla.", "Fue su primera medalla."),
    ("novel", "written here", "Tenía 31 años.", "Tenía treinta y un años."),
    (
        "novel",
        "written here",
        "Carlos V gobernó medio mundo.",
        "Carlos quinto gobernó medio mundo.",
    ),
    ("novel", "written here", "La Sra. López llegó tarde.", "La señora López llegó tarde."),
    ("novel", "written here", "Vivía en el 1.er piso.", "Vivía en el primer piso."),
    ("novel", "written here", "Había 1 mesa y 2 sillas.", "Había una mesa y dos sillas."),
    (
        "invoice",
        "written here",
        "Precio: 12,50 € IVA incluido.",
        "Precio: doce euros con cincuenta céntimos IVA incluido.",
    ),
    (
        "invoice",
        "written here",
        "Vence el 30/06/2024.",
        "Vence el treinta de junio de dos mil veinticuatro.",
    ),
    ("invoice", "written here", "Descuento del 15 %.", "Descuento del quince por ciento."),
    (
        "invoice",
        "written here",
        "Pedido núm. 7781.",
        "Pedido número siete mil setecientos ochenta y uno.",
    ),
    (
        "news",
        "written here",
        "El 1 de enero de 2002 llegó el euro.",
        "El uno de enero de dos mil dos llegó el euro.",
    ),
    (
        "news",
        "written here",
        "Los precios subieron un 0,5 %.",
        "Los precios subieron un cero coma cinco por ciento.",
    ),
    (
        "news",
        "written here",
        "La empresa ganó 12,3 millones de euros.",
        "La empresa ganó doce coma tres millones de euros.",
    ),
    (
        "news",
        "written here",
        "Hubo 41 víctimas mortales.",
        "Hubo cuarenta y una víctimas mortales.",
    ),
    (
        "news",
        "written here",
        "La cumbre será el 12/06/2025.",
        "La cumbre será el doce de junio de dos mil veinticinco.",
    ),
    (
        "recipe",
        "written here",
        "Freír con 2 cucharadas de mantequilla.",
        "Freír con dos cucharadas de mantequilla.",
    ),
    (
        "recipe",
        "written here",
        "Hornear 40 min a 160 °C.",
        "Hornear cuarenta minutos a ciento sesenta grados Celsius.",
    ),
    ("recipe", "written here", "Picar 1 cebolla.", "Picar una cebolla."),
    ("timetable", "written here", "El metro pasa cada 10 min.", "El metro pasa cada diez minutos."),
    ("timetable", "written here", "Horario: de 10 a 18 h.", "Horario: de diez a dieciocho horas."),
    ("timetable", "written here", "Quedamos a las 7:00.", "Quedamos a las siete."),
    ("sports", "written here", "El Sevilla perdió 0-2.", "El Sevilla perdió cero a dos."),
    ("sports", "written here", "Llegó 3.ª a la meta.", "Llegó tercera a la meta."),
    (
        "sports",
        "written here",
        "Nadó los 200 m en 1:45,3.",
        "Nadó los doscientos metros en un minuto cuarenta y cinco coma tres segundos.",
    ),
    ("sports", "written here", "Es su 5.º título.", "Es su quinto título."),
    ("novel", "written here", "En el siglo XX todo cambió.", "En el siglo veinte todo cambió."),
    ("novel", "written here", "Fue con 1 amigo a Roma.", "Fue con un amigo a Roma."),
    (
        "novel",
        "written here",
        "Leyó hasta las 2 de la madrugada.",
        "Leyó hasta las dos de la madrugada.",
    ),
    ("novel", S_LNW, "Felipe IV amaba la pintura.", "Felipe cuarto amaba la pintura."),
    ("novel", "written here", "Contó hasta 100.", "Contó hasta cien."),
    ("invoice", "written here", "Importe total: 99,00 €.", "Importe total: noventa y nueve euros."),
    (
        "invoice",
        "written here",
        "Pagadero antes del 31/01/2025.",
        "Pagadero antes del treinta y uno de enero de dos mil veinticinco.",
    ),
    ("invoice", "written here", "Artículo núm. 55.", "Artículo número cincuenta y cinco."),
    ("invoice", "written here", "Entrega en 2-3 semanas.", "Entrega en dos a tres semanas."),
    ("invoice", "written here", "Cuesta 1 euro.", "Cuesta un euro."),
    (
        "news",
        "written here",
        "La guerra duró de 1939 a 1945.",
        "La guerra duró de mil novecientos treinta y nueve a mil novecientos cuarenta y cinco.",
    ),
    (
        "news",
        "written here",
        "Los beneficios cayeron un 10-15 %.",
        "Los beneficios cayeron un diez a quince por ciento.",
    ),
    (
        "news",
        "written here",
        "El 3 de mayo de 2021 cambió la ley.",
        "El tres de mayo de dos mil veintiuno cambió la ley.",
    ),
    ("news", "written here", "Nació en los años 80.", "Nació en los años ochenta."),
    ("recipe", "written here", "Usar ¾ de taza de azúcar.", "Usar tres cuartos de taza de azúcar."),
    (
        "recipe",
        "written here",
        "Hornear 20-25 min a 180 °C.",
        "Hornear veinte a veinticinco minutos a ciento ochenta grados Celsius.",
    ),
    ("recipe", "written here", "Añadir 1 cucharada de miel.", "Añadir una cucharada de miel."),
    (
        "timetable",
        "written here",
        "El museo abre a las 10:00 en punto.",
        "El museo abre a las diez en punto.",
    ),
    (
        "timetable",
        "written here",
        "Hay trenes de 5:30 a 23:45.",
        "Hay trenes de cinco y treinta a veintitrés y cuarenta y cinco.",
    ),
    (
        "sports",
        "written here",
        "El Betis empató 2-2 con el Celta.",
        "El Betis empató dos a dos con el Celta.",
    ),
    (
        "sports",
        "written here",
        "Lanzó 67,5 m en 2016.",
        "Lanzó sesenta y siete coma cinco metros en dos mil dieciséis.",
    ),
    (
        "sports",
        "written here",
        "Corrió la milla en 3:59,4.",
        "Corrió la milla en tres minutos cincuenta y nueve coma cuatro segundos.",
    ),
    (
        "novel",
        "written here",
        "Fernando VII volvió en 1814.",
        "Fernando séptimo volvió en mil ochocientos catorce.",
    ),
    (
        "novel",
        "written here",
        "Nació el 15/04/1990.",
        "Nació el quince de abril de mil novecientos noventa.",
    ),
    ("novel", "written here", "Vivía en el 3.er piso.", "Vivía en el tercer piso."),
    ("invoice", "written here", "Saldo: -45,00 €.", "Saldo: menos cuarenta y cinco euros."),
    ("invoice", "written here", "IVA del 21 %.", "IVA del veintiuno por ciento."),
    ("invoice", "written here", "Pagó 1.000 € de entrada.", "Pagó mil euros de entrada."),
    ("invoice", "written here", "Son 2 unidades.", "Son dos unidades."),
    ("invoice", "written here", "Llegó la 2.ª reclamación.", "Llegó la segunda reclamación."),
    (
        "recipe",
        S_VIDA,
        "Se usan 2 1/2 tazas de azúcar rubia.",
        "Se usan dos tazas y media de azúcar rubia.",
    ),
    ("recipe", S_VIDA, "Añade 1/2 cucharadita de sal.", "Añade media cucharadita de sal."),
    (
        "recipe",
        S_VIDA,
        "Precalienta el horno a 350 grados.",
        "Precalienta el horno a trescientos cincuenta grados.",
    ),
    (
        "recipe",
        S_VIDA,
        "Hornea entre 45 o 50 minutos.",
        "Hornea entre cuarenta y cinco o cincuenta minutos.",
    ),
    ("recipe", S_HSA, "Necesitas 400 gr de azúcar.", "Necesitas cuatrocientos gramos de azúcar."),
    (
        "recipe",
        S_HSA,
        "Agrega 150 ml de aceite neutro.",
        "Agrega ciento cincuenta mililitros de aceite neutro.",
    ),
    (
        "recipe",
        S_HSA,
        "Calienta el horno a 150°C o 200°F.",
        "Calienta el horno a ciento cincuenta grados Celsius o doscientos grados Fahrenheit.",
    ),
    ("recipe", S_HSA, "Hornéalo de 30 a 40 minutos.", "Hornéalo de treinta a cuarenta minutos."),
    ("recipe", S_HSA, "Salen de unas 6 a 10 porciones.", "Salen de unas seis a diez porciones."),
    ("recipe", S_ALOJ, "Echa 3/4 de taza de aceite.", "Echa tres cuartos de taza de aceite."),
    (
        "recipe",
        S_ALOJ,
        "Cocina a 120º C (250º F) por una hora.",
        "Cocina a ciento veinte grados Celsius (doscientos cincuenta grados Fahrenheit) por una hora.",
    ),
    ("recipe", S_NENA, "Pesa 220 gr. de azúcar.", "Pesa doscientos veinte gramos de azúcar."),
    (
        "recipe",
        S_NENA,
        "Precalienta el horno a 180ºC.",
        "Precalienta el horno a ciento ochenta grados Celsius.",
    ),
    ("recipe", S_NENA, "Hornea unos 30 minutos.", "Hornea unos treinta minutos."),
    (
        "recipe",
        S_BLANCA,
        "Bate 100 gramos de manteca con 1 taza de azúcar.",
        "Bate cien gramos de manteca con una taza de azúcar.",
    ),
    (
        "recipe",
        S_BABOVKA,
        "Agrega 5 cucharadas de agua hirviendo.",
        "Agrega cinco cucharadas de agua hirviendo.",
    ),
    (
        "recipe",
        S_JUGANDO,
        "Usa una leche 0 % en materia grasa.",
        "Usa una leche cero por ciento en materia grasa.",
    ),
    (
        "recipe",
        S_NISI,
        "Publicado el domingo, 11 de agosto de 2013.",
        "Publicado el domingo, once de agosto de dos mil trece.",
    ),
    (
        "recipe",
        S_NISI,
        "Pide 200 cc de leche a un vecino.",
        "Pide doscientos centímetros cúbicos de leche a un vecino.",
    ),
    (
        "recipe",
        S_PLEN,
        "Machaca 6 dientes de ajo con 250cc de aceite (1 taza).",
        "Machaca seis dientes de ajo con doscientos cincuenta centímetros cúbicos de aceite (una taza).",
    ),
    (
        "recipe",
        S_PLEN,
        "Se conoce desde principios del siglo X.",
        "Se conoce desde principios del siglo diez.",
    ),
    ("recipe", S_JVAS, "Añade 1 Pizca de sal.", "Añade una Pizca de sal."),
    ("recipe", S_JVAS, "Mezcla 2 Cucharadas de mayonesa.", "Mezcla dos Cucharadas de mayonesa."),
    ("recipe", S_ABUELA, "Bate 1 vaso de aceite de oliva.", "Bate un vaso de aceite de oliva."),
    ("recipe", S_ABUELA, "Echa 1 sobre de levadura.", "Echa un sobre de levadura."),
    (
        "recipe",
        S_ABUELA,
        "A 180 grados durante unos 40 o 45 minutos.",
        "A ciento ochenta grados durante unos cuarenta o cuarenta y cinco minutos.",
    ),
    (
        "recipe",
        S_COCI,
        "Con ½ taza tienes 120 ml.",
        "Con media taza tienes ciento veinte mililitros.",
    ),
    (
        "recipe",
        S_COCI,
        "Un vaso tiene 200–250 ml.",
        "Un vaso tiene doscientos a doscientos cincuenta mililitros.",
    ),
    ("recipe", S_COCI, "Son 2 tazas aprox.", "Son dos tazas aproximadamente."),
    (
        "recipe",
        S_KNOW,
        "Cien gotas llenan 1 cucharadita (5 ml).",
        "Cien gotas llenan una cucharadita (cinco mililitros).",
    ),
    (
        "recipe",
        S_KNOW,
        "Dos cucharadas hacen 1 onza (30 ml).",
        "Dos cucharadas hacen una onza (treinta mililitros).",
    ),
    (
        "recipe",
        S_VALN,
        "Un vaso de vino son 100 cc.",
        "Un vaso de vino son cien centímetros cúbicos.",
    ),
    ("recipe", S_VALN, "Un tazón es 1/4 de litro.", "Un tazón es un cuarto de litro."),
    ("recipe", S_VALN, "Una copita es 1/2 decilitro.", "Una copita es medio decilitro."),
    (
        "recipe",
        S_VALN,
        "Un vaso son 16 cucharadas de agua.",
        "Un vaso son dieciséis cucharadas de agua.",
    ),
    (
        "recipe",
        S_BCN,
        "Con 5 gramos llenas 1 cucharadita de café.",
        "Con cinco gramos llenas una cucharadita de café.",
    ),
    (
        "recipe",
        S_BCN,
        "El jugo de 1 limón da 3 cucharadas aprox.",
        "El jugo de un limón da tres cucharadas aproximadamente.",
    ),
    ("recipe", S_MAPFRE, "Equivale a unos 15 mililitros.", "Equivale a unos quince mililitros."),
    ("recipe", S_MAPFRE, "Puede llegar hasta 40 gramos.", "Puede llegar hasta cuarenta gramos."),
    (
        "recipe",
        S_UNIV,
        "Una taza pesa de 100 a 140 gramos.",
        "Una taza pesa de cien a ciento cuarenta gramos.",
    ),
    ("recipe", S_UNIV, "Es una diferencia del 40%.", "Es una diferencia del cuarenta por ciento."),
    (
        "recipe",
        S_UNIV,
        "La cucharada inglesa varía entre 14 y 18 ml.",
        "La cucharada inglesa varía entre catorce y dieciocho mililitros.",
    ),
    (
        "news",
        S_ACX,
        "El ebitda creció un 23,6%, hasta 519,56 millones.",
        "El ebitda creció un veintitrés coma seis por ciento, hasta quinientos diecinueve coma cincuenta y seis millones.",
    ),
    (
        "news",
        S_ACX,
        "La facturación llegó a 3.929,13 millones.",
        "La facturación llegó a tres mil novecientos veintinueve coma trece millones.",
    ),
    (
        "news",
        S_ELESP,
        "Se pasó del 5,8% a otro del 2,4%.",
        "Se pasó del cinco coma ocho por ciento a otro del dos coma cuatro por ciento.",
    ),
    (
        "news",
        S_ELESP,
        "Facturaron 4.298 millones de euros diarios.",
        "Facturaron cuatro mil doscientos noventa y ocho millones de euros diarios.",
    ),
    (
        "news",
        S_ELESP,
        "Fue un 0,4% menos que en 2022.",
        "Fue un cero coma cuatro por ciento menos que en dos mil veintidós.",
    ),
    (
        "news",
        S_RU24,
        "Con una inversión de 270 millones de euros.",
        "Con una inversión de doscientos setenta millones de euros.",
    ),
    (
        "news",
        S_RU24,
        "Las ventas crecieron un 14'5%.",
        "Las ventas crecieron un catorce coma cinco por ciento.",
    ),
    (
        "news",
        S_RU24,
        "Tiene 1.809 personas en nómina.",
        "Tiene mil ochocientas nueve personas en nómina.",
    ),
    ("news", S_RU24, "Espera superar las 2.000.", "Espera superar las dos mil."),
    (
        "news",
        S_BMW,
        "Facturó 155.500 millones de euros.",
        "Facturó ciento cincuenta y cinco mil quinientos millones de euros.",
    ),
    (
        "news",
        S_BMW,
        "El margen subió hasta el 9,8 por ciento.",
        "El margen subió hasta el nueve coma ocho por ciento.",
    ),
    ("news", S_BMW, "Ganó 1,2 puntos porcentuales.", "Ganó uno coma dos puntos porcentuales."),
    ("news", S_AZVI, "Roza los 1.000 millones de euros.", "Roza los mil millones de euros."),
    ("news", S_AZVI, "Un ebitda de más de 70 millones.", "Un ebitda de más de setenta millones."),
    (
        "news",
        S_AZVI,
        "El ebitda fue de 41,8 millones.",
        "El ebitda fue de cuarenta y uno coma ocho millones.",
    ),
    (
        "news",
        S_AZVI,
        "El 80% de la facturación está fuera.",
        "El ochenta por ciento de la facturación está fuera.",
    ),
    (
        "news",
        S_DV,
        "Hubo un alza del 10,4% en la construcción.",
        "Hubo un alza del diez coma cuatro por ciento en la construcción.",
    ),
    (
        "news",
        S_DM,
        "El disco se titula A mis 33 años.",
        "El disco se titula A mis treinta y tres años.",
    ),
    ("news", S_DM, "Vendieron 29 millones de copias.", "Vendieron veintinueve millones de copias."),
    (
        "news",
        S_DM,
        "Lo lanzaron en diciembre de 1976.",
        "Lo lanzaron en diciembre de mil novecientos setenta y seis.",
    ),
    ("news", S_DM, "La banda cumple 40 años.", "La banda cumple cuarenta años."),
    (
        "news",
        S_MEDI,
        "Un festival para los nostálgicos de los años 80.",
        "Un festival para los nostálgicos de los años ochenta.",
    ),
    (
        "novel",
        S_INSULA,
        "Se publicaban por entregas desde los años 40.",
        "Se publicaban por entregas desde los años cuarenta.",
    ),
    ("sports", S_UNO, "El Madrid le ganó 2-1 al Alavés.", "El Madrid le ganó dos a uno al Alavés."),
    (
        "sports",
        S_UNO,
        "Barcelona suma 43; Real Madrid 39.",
        "Barcelona suma cuarenta y tres; Real Madrid treinta y nueve.",
    ),
    ("sports", S_GRADA, "Es la 10ª jornada de LaLiga.", "Es la décima jornada de LaLiga."),
    (
        "sports",
        S_GRADA,
        "Celebró su 125 aniversario ganando.",
        "Celebró su ciento veinticinco aniversario ganando.",
    ),
    (
        "sports",
        S_GRADA,
        "El 0-2 del Villarreal desató la bronca.",
        "El cero a dos del Villarreal desató la bronca.",
    ),
    ("sports", S_GRADA, "Los dos equipos empataron 3-3.", "Los dos equipos empataron tres a tres."),
    ("sports", S_GRADA, "Ganó por 1-0 ante el Elche.", "Ganó por uno a cero ante el Elche."),
    (
        "sports",
        S_GRADA,
        "Alcanza los 18 puntos en 10 jornadas.",
        "Alcanza los dieciocho puntos en diez jornadas.",
    ),
    ("sports", S_OK1, "Marcó desde los 11 metros.", "Marcó desde los once metros."),
    ("sports", S_OK1, "El líder queda con 51 puntos.", "El líder queda con cincuenta y un puntos."),
    (
        "sports",
        S_OK1,
        "La Liga sigue a falta de 14 jornadas.",
        "La Liga sigue a falta de catorce jornadas.",
    ),
    ("sports", S_OK2, "Ganó 0-4 en Son Moix.", "Ganó cero a cuatro en Son Moix."),
    ("sports", S_OK2, "Fue en la jornada 28 de Liga.", "Fue en la jornada veintiocho de Liga."),
    (
        "sports",
        S_NOTICEL,
        "Los blancos suman 97 puntos.",
        "Los blancos suman noventa y siete puntos.",
    ),
    ("sports", S_NOTICEL, "El Valencia sumó 61 puntos.", "El Valencia sumó sesenta y un puntos."),
    (
        "sports",
        S_NOTICEL,
        "Selló el 1-2 blanco en propia meta.",
        "Selló el uno a dos blanco en propia meta.",
    ),
    (
        "sports",
        S_ULTIMA,
        "Desde las 16 se juega la fecha.",
        "Desde las dieciséis se juega la fecha.",
    ),
    (
        "timetable",
        S_TRES,
        "Fue creada el 1 de octubre de 2018.",
        "Fue creada el uno de octubre de dos mil dieciocho.",
    ),
    (
        "timetable",
        S_TRES,
        "El recorrido dura aproximadamente 35 minutos.",
        "El recorrido dura aproximadamente treinta y cinco minutos.",
    ),
    ("timetable", S_TRES, "Recibe el número 5903.", "Recibe el número cinco mil novecientos tres."),
    (
        "timetable",
        S_TRES,
        "Coincidió con la ampliación de la línea 713.",
        "Coincidió con la ampliación de la línea setecientos trece.",
    ),
    (
        "timetable",
        S_GETAFE,
        "Pasa con una frecuencia de 20-24 minutos.",
        "Pasa con una frecuencia de veinte a veinticuatro minutos.",
    ),
    (
        "timetable",
        S_GETAFE,
        "La inversión es de 140.000 euros.",
        "La inversión es de ciento cuarenta mil euros.",
    ),
    (
        "timetable",
        S_CUENCA,
        "Publicado el 27/08/2023.",
        "Publicado el veintisiete de agosto de dos mil veintitrés.",
    ),
    (
        "timetable",
        S_CUENCA,
        "Este lunes 28 de agosto cambia el horario.",
        "Este lunes veintiocho de agosto cambia el horario.",
    ),
    (
        "timetable",
        S_CUENCA,
        "Funciona entre las 7,00 y las 22,30 horas.",
        "Funciona entre las siete y las veintidós y treinta horas.",
    ),
    (
        "timetable",
        S_CUENCA,
        "Pasa desde las 7,45 horas hasta las 21,15 horas.",
        "Pasa desde las siete y cuarenta y cinco horas hasta las veintiuna y quince horas.",
    ),
    (
        "timetable",
        S_CUENCA,
        "Pasará cada 60 minutos de 9,00 a 21,30 horas.",
        "Pasará cada sesenta minutos de nueve a veintiuna y treinta horas.",
    ),
    (
        "timetable",
        S_OVIEDO,
        "Habrá salidas a las 7:00, 7:20 y 7:40 horas.",
        "Habrá salidas a las siete, siete y veinte y siete y cuarenta horas.",
    ),
    (
        "timetable",
        S_OVIEDO,
        "Cada 15 minutos hasta las 23:00 horas.",
        "Cada quince minutos hasta las veintitrés horas.",
    ),
    (
        "timetable",
        S_FARO,
        "Sale a las 6:55, 10, 14 y 16:15.",
        "Sale a las seis y cincuenta y cinco, diez, catorce y dieciséis y quince.",
    ),
    (
        "timetable",
        S_FARO,
        "Empieza el lunes 25 de septiembre.",
        "Empieza el lunes veinticinco de septiembre.",
    ),
    (
        "timetable",
        S_FARO,
        "Estará operativa hasta el 7 de junio de 2024.",
        "Estará operativa hasta el siete de junio de dos mil veinticuatro.",
    ),
    (
        "timetable",
        S_N803,
        "Fue creada en la década de 1980.",
        "Fue creada en la década de mil novecientos ochenta.",
    ),
    (
        "timetable",
        S_N803,
        "A partir del 27 de mayo de 2005 cambió de nombre.",
        "A partir del veintisiete de mayo de dos mil cinco cambió de nombre.",
    ),
    (
        "timetable",
        S_N803,
        "Es un trayecto de 45 minutos de duración.",
        "Es un trayecto de cuarenta y cinco minutos de duración.",
    ),
    (
        "timetable",
        S_TUS,
        "Actualizado el 19.04.2024.",
        "Actualizado el diecinueve de abril de dos mil veinticuatro.",
    ),
    (
        "timetable",
        S_TUS,
        "Entra en servicio este jueves 22.",
        "Entra en servicio este jueves veintidós.",
    ),
    (
        "timetable",
        S_TUS,
        "Hay salidas entre las 7:10 y las 9:10 horas.",
        "Hay salidas entre las siete y diez y las nueve y diez horas.",
    ),
    (
        "timetable",
        S_TUS,
        "El regreso es entre las 7.45 y 9.45 horas.",
        "El regreso es entre las siete y cuarenta y cinco y nueve y cuarenta y cinco horas.",
    ),
    (
        "timetable",
        S_TUS,
        "Once salidas (de 12:23 a 15:43 horas).",
        "Once salidas (de doce y veintitrés a quince y cuarenta y tres horas).",
    ),
    (
        "timetable",
        S_TUS,
        "Pasa con intervalos de 20 minutos.",
        "Pasa con intervalos de veinte minutos.",
    ),
    (
        "timetable",
        S_TALA,
        "La asamblea será a las 20:15 horas.",
        "La asamblea será a las veinte y quince horas.",
    ),
    (
        "timetable",
        S_TALA,
        "Atención de 18:00 horas a 21:00 horas.",
        "Atención de dieciocho horas a veintiuna horas.",
    ),
    (
        "timetable",
        S_TALA,
        "Será el próximo martes, 9, a las 20:45 horas.",
        "Será el próximo martes, nueve, a las veinte y cuarenta y cinco horas.",
    ),
    (
        "news",
        S_ARCH,
        "Basta con el 20 por ciento de los socios.",
        "Basta con el veinte por ciento de los socios.",
    ),
    ("novel", S_LNW, "Felipe IV perdió territorios.", "Felipe cuarto perdió territorios."),
    (
        "novel",
        S_IAI,
        "A las diez, Felipe II estaba solo.",
        "A las diez, Felipe segundo estaba solo.",
    ),
    (
        "novel",
        S_GC,
        "El reino de Granada (1492) cayó.",
        "El reino de Granada (mil cuatrocientos noventa y dos) cayó.",
    ),
    ("invoice", S_TALES, "El libro cuesta 20€.", "El libro cuesta veinte euros."),
    (
        "novel",
        S_TALES,
        "Murió en 1598 en El Escorial.",
        "Murió en mil quinientos noventa y ocho en El Escorial.",
    ),
    (
        "invoice",
        S_B965,
        "Su precio es de 21,90 €.",
        "Su precio es de veintiún euros con noventa céntimos.",
    ),
    (
        "novel",
        S_B965,
        "La autora (Sabadell, 1963) es periodista.",
        "La autora (Sabadell, mil novecientos sesenta y tres) es periodista.",
    ),
    ("novel", S_B965, "Felipe V fue el primer Borbón.", "Felipe quinto fue el primer Borbón."),
    (
        "invoice",
        S_B965,
        "El libro tiene 352 páginas.",
        "El libro tiene trescientas cincuenta y dos páginas.",
    ),
    (
        "novel",
        S_AREA,
        "Felipe II de España (Valladolid, 1527-1598) reinó.",
        "Felipe segundo de España (Valladolid, mil quinientos veintisiete a mil quinientos noventa y ocho) reinó.",
    ),
    ("novel", S_AREA, "Carlos II cerró la saga.", "Carlos segundo cerró la saga."),
    (
        "novel",
        S_ALQ,
        "Sus 1383 páginas pesan.",
        "Sus mil trescientas ochenta y tres páginas pesan.",
    ),
    (
        "novel",
        S_ALQ,
        "No salió de España desde 1559.",
        "No salió de España desde mil quinientos cincuenta y nueve.",
    ),
    ("other", S_NOST, "Tomemos estas 4 bandas.", "Tomemos estas cuatro bandas."),
    ("other", S_NOST, "Styx nació en 1961.", "Styx nació en mil novecientos sesenta y uno."),
    (
        "invoice",
        S_IVA,
        "El IVA oscila entre el 4 y el 21%.",
        "El IVA oscila entre el cuatro y el veintiuno por ciento.",
    ),
    (
        "news",
        S_POTOSI,
        "Potosí tenía 717.000 habitantes.",
        "Potosí tenía setecientos diecisiete mil habitantes.",
    ),
    (
        "sports",
        S_ANTENA,
        "El español, número 2 del ranking, ganó la final.",
        "El español, número dos del ranking, ganó la final.",
    ),
    (
        "sports",
        S_ANTENA,
        "Venció al serbio por 6-0, 6-2 y 7-5.",
        "Venció al serbio por seis a cero, seis a dos y siete a cinco.",
    ),
    (
        "sports",
        S_ANTENA,
        "Fueron dos horas y 40 minutos de juego.",
        "Fueron dos horas y cuarenta minutos de juego.",
    ),
    (
        "sports",
        S_ANTENA,
        "Consiguió su título número 13 en París.",
        "Consiguió su título número trece en París.",
    ),
    (
        "sports",
        S_DIAADIA,
        "Ganó por 6-1, 6-3 y 6-0 en una hora y 48 minutos.",
        "Ganó por seis a uno, seis a tres y seis a cero en una hora y cuarenta y ocho minutos.",
    ),
    (
        "sports",
        S_DIAADIA,
        "Lleva en París 28 partidos consecutivos sin perder.",
        "Lleva en París veintiocho partidos consecutivos sin perder.",
    ),
    (
        "sports",
        S_VIVES,
        "El partido duró 2 horas y 5 minutos.",
        "El partido duró dos horas y cinco minutos.",
    ),
    (
        "sports",
        S_VIVES,
        "Nadal ganaba 5-1 en el tercer set.",
        "Nadal ganaba cinco a uno en el tercer set.",
    ),
    (
        "sports",
        S_DOMHOY,
        "Sumó 35 no forzados contra 25 del campeón.",
        "Sumó treinta y cinco no forzados contra veinticinco del campeón.",
    ),
    (
        "sports",
        S_DOMHOY,
        "Venció a su compatriota por 6-3, 6-2 y 6-3.",
        "Venció a su compatriota por seis a tres, seis a dos y seis a tres.",
    ),
    ("recipe", S_GUERRERO, "Bate bien 3 huevos en un bol.", "Bate bien tres huevos en un bol."),
    (
        "recipe",
        S_GUERRERO,
        "Añade 2 vasitos de azúcar y 1 vasito de leche.",
        "Añade dos vasitos de azúcar y un vasito de leche.",
    ),
    (
        "recipe",
        S_GUERRERO,
        "Pon el horno a precalentar a 180 ºC arriba y abajo.",
        "Pon el horno a precalentar a ciento ochenta grados Celsius arriba y abajo.",
    ),
    (
        "recipe",
        S_GUERRERO,
        "Si no está hecho, déjalo 5 minutos más.",
        "Si no está hecho, déjalo cinco minutos más.",
    ),
    (
        "recipe",
        S_REPORTE,
        "Se usan 240 g de huevos (4 huevos tamaño L).",
        "Se usan doscientos cuarenta gramos de huevos (cuatro huevos tamaño L).",
    ),
    (
        "recipe",
        S_REPORTE,
        "Pesa 120 g de azúcar (1/2 taza).",
        "Pesa ciento veinte gramos de azúcar (media taza).",
    ),
    (
        "recipe",
        S_REPORTE,
        "Precalienta el horno a 160 grados centígrados.",
        "Precalienta el horno a ciento sesenta grados centígrados.",
    ),
    (
        "recipe",
        S_REPORTE,
        "Son 4 huevos (62 g cada uno).",
        "Son cuatro huevos (sesenta y dos gramos cada uno).",
    ),
    (
        "recipe",
        S_COTI,
        "El molde va desde los 18 a los 22 cm.",
        "El molde va desde los dieciocho a los veintidós centímetros.",
    ),
    (
        "recipe",
        S_CADIZ,
        "La cocción es de en torno a los 50 minutos.",
        "La cocción es de en torno a los cincuenta minutos.",
    ),
    (
        "recipe",
        S_DULCE,
        "Monta 150 gr. de azúcar con las yemas.",
        "Monta ciento cincuenta gramos de azúcar con las yemas.",
    ),
    (
        "recipe",
        S_DULCE,
        "Salen 3 bizcochos de 16 cm. de diámetro.",
        "Salen tres bizcochos de dieciséis centímetros de diámetro.",
    ),
    (
        "recipe",
        S_DULCE,
        "Añade 195 gr. harina tamizada.",
        "Añade ciento noventa y cinco gramos harina tamizada.",
    ),
    ("recipe", S_DULCE, "Monta 3 claras de huevo.", "Monta tres claras de huevo."),
    (
        "recipe",
        S_PIT,
        "Engrasa un molde redondo de 20 cm de diámetro.",
        "Engrasa un molde redondo de veinte centímetros de diámetro.",
    ),
    ("recipe", S_PIT, "Bate durante 8 a 12 minutos.", "Bate durante ocho a doce minutos."),
    (
        "recipe",
        S_PIT,
        "Precalienta el horno a 170°C.",
        "Precalienta el horno a ciento setenta grados Celsius.",
    ),
    (
        "news",
        S_VIVA,
        "Las máximas oscilarán entre los 38 y 41 grados.",
        "Las máximas oscilarán entre los treinta y ocho y cuarenta y un grados.",
    ),
    (
        "news",
        S_VIVA,
        "Afecta a los municipios por debajo de los 900 metros.",
        "Afecta a los municipios por debajo de los novecientos metros.",
    ),
    (
        "news",
        S_VIVA,
        "Por la noche las mínimas oscilarán entre los 22 y 25 grados.",
        "Por la noche las mínimas oscilarán entre los veintidós y veinticinco grados.",
    ),
    (
        "news",
        S_ELDIARIO,
        "Hay alerta por viento marítimo de fuerza 7.",
        "Hay alerta por viento marítimo de fuerza siete.",
    ),
    (
        "news",
        S_ELDIARIO,
        "Caerán hasta 20 litros de lluvia por metro cuadrado.",
        "Caerán hasta veinte litros de lluvia por metro cuadrado.",
    ),
    (
        "news",
        S_LOM,
        "Se esperan 23 grados de mínima y 33 de máxima.",
        "Se esperan veintitrés grados de mínima y treinta y tres de máxima.",
    ),
    (
        "news",
        S_LOM,
        "Hay nivel amarillo por máximas entre 36-39 grados.",
        "Hay nivel amarillo por máximas entre treinta y seis y treinta y nueve grados.",
    ),
    (
        "news",
        S_LOM,
        "Hay 8 comunidades en aviso naranja.",
        "Hay ocho comunidades en aviso naranja.",
    ),
    (
        "news",
        S_FUENTES,
        "Hoy: 23 de noviembre de 2024",
        "Hoy: veintitrés de noviembre de dos mil veinticuatro",
    ),
    (
        "news",
        S_FUENTES,
        "Las temperaturas llegarán hasta los 44ºC.",
        "Las temperaturas llegarán hasta los cuarenta y cuatro grados Celsius.",
    ),
    (
        "news",
        S_A3,
        "Hay aviso naranja en 5 comunidades.",
        "Hay aviso naranja en cinco comunidades.",
    ),
    (
        "news",
        S_A3,
        "Se prevén 34 grados por debajo de los 1.000 metros de altitud.",
        "Se prevén treinta y cuatro grados por debajo de los mil metros de altitud.",
    ),
    (
        "news",
        S_24H,
        "El aviso rige desde la 1 de la tarde hasta las 9 de la noche.",
        "El aviso rige desde la una de la tarde hasta las nueve de la noche.",
    ),
    (
        "news",
        S_24H,
        "Otras 24 provincias han recibido un aviso naranja.",
        "Otras veinticuatro provincias han recibido un aviso naranja.",
    ),
    (
        "news",
        S_24H,
        "El 14 de agosto se emitió el aviso.",
        "El catorce de agosto se emitió el aviso.",
    ),
    (
        "news",
        S_A3B,
        "Se prevén rachas máximas de 70 km/h.",
        "Se prevén rachas máximas de setenta kilómetros por hora.",
    ),
    (
        "news",
        S_A3B,
        "Habrá una precipitación acumulada de 30mm en una hora.",
        "Habrá una precipitación acumulada de treinta milímetros en una hora.",
    ),
    (
        "news",
        S_GOMERA,
        "Con el 60,86% escrutado, el PP gana.",
        "Con el sesenta coma ochenta y seis por ciento escrutado, el PP gana.",
    ),
    (
        "news",
        S_GOMERA,
        "Logra 124 escaños y un 27,97% de los votos.",
        "Logra ciento veinticuatro escaños y un veintisiete coma noventa y siete por ciento de los votos.",
    ),
    (
        "news",
        S_GOMERA,
        "Obtiene un 0,03% de los votos y 1 escaño.",
        "Obtiene un cero coma cero tres por ciento de los votos y un escaño.",
    ),
    (
        "news",
        S_GOMERA,
        "Más de 36 millones de españoles votaban.",
        "Más de treinta y seis millones de españoles votaban.",
    ),
    (
        "news",
        S_GOMERA,
        "Se eligen los 350 diputados y los 208 senadores.",
        "Se eligen los trescientos cincuenta diputados y los doscientos ocho senadores.",
    ),
    (
        "news",
        S_AZIZE,
        "Queda lejos de los 176 necesarios.",
        "Queda lejos de los ciento setenta y seis necesarios.",
    ),
    (
        "news",
        S_AZIZE,
        "Obtuvo 14 escaños menos, 123.",
        "Obtuvo catorce escaños menos, ciento veintitrés.",
    ),
    (
        "news",
        S_RUNRUN,
        "Con 45,22% de votos escrutados, el PP gana.",
        "Con cuarenta y cinco coma veintidós por ciento de votos escrutados, el PP gana.",
    ),
    (
        "news",
        S_RUNRUN,
        "Fueron los comicios del domingo 20 de diciembre.",
        "Fueron los comicios del domingo veinte de diciembre.",
    ),
    (
        "news",
        S_LARAZON,
        "Tiene 136 escaños y el 33,1% de los votos.",
        "Tiene ciento treinta y seis escaños y el treinta y tres coma uno por ciento de los votos.",
    ),
    (
        "news",
        S_LARAZON,
        "Saca un 28,48 por ciento y entre 117 y 121 escaños.",
        "Saca un veintiocho coma cuarenta y ocho por ciento y entre ciento diecisiete y ciento veintiún escaños.",
    ),
    (
        "news",
        S_LARAZON,
        "Ciudadanos se queda con 29 escaños (12%).",
        "Ciudadanos se queda con veintinueve escaños (doce por ciento).",
    ),
    (
        "news",
        S_ELCIUD,
        "Fue la cota máxima de los comicios de 1982.",
        "Fue la cota máxima de los comicios de mil novecientos ochenta y dos.",
    ),
    (
        "news",
        S_ELCIUD,
        "El PP ganó con 122 diputados.",
        "El PP ganó con ciento veintidós diputados.",
    ),
    (
        "news",
        S_DMALL,
        "Obtuvieron en 2011 un total de 186 diputados.",
        "Obtuvieron en dos mil once un total de ciento ochenta y seis diputados.",
    ),
    (
        "news",
        S_DMALL,
        "El partido logra 40 asientos (13,93%).",
        "El partido logra cuarenta asientos (trece coma noventa y tres por ciento).",
    ),
    (
        "news",
        S_DMALL,
        "La coalición ha sumado 1,60%.",
        "La coalición ha sumado uno coma sesenta por ciento.",
    ),
    (
        "novel",
        S_MCN,
        "Alfonso XIII, nacido en Madrid el 17 de mayo de 1886, fue rey al nacer.",
        "Alfonso trece, nacido en Madrid el diecisiete de mayo de mil ochocientos ochenta y seis, fue rey al nacer.",
    ),
    (
        "novel",
        S_MCN,
        "Era hijo de Alfonso XII y de María Cristina.",
        "Era hijo de Alfonso doce y de María Cristina.",
    ),
    (
        "novel",
        S_MCN,
        "Fue una figura central a principios del siglo XX.",
        "Fue una figura central a principios del siglo veinte.",
    ),
    (
        "novel",
        S_MCN,
        "Su madre reinó hasta que él cumpliera 16 años.",
        "Su madre reinó hasta que él cumpliera dieciséis años.",
    ),
    (
        "novel",
        S_MCN,
        "Surgió entonces la Generación del 98.",
        "Surgió entonces la Generación del noventa y ocho.",
    ),
    (
        "novel",
        S_DEFIN,
        "Vivió entre dos siglos (1886-1941).",
        "Vivió entre dos siglos (mil ochocientos ochenta y seis a mil novecientos cuarenta y uno).",
    ),
    (
        "novel",
        S_DEFIN,
        "Recuerda el vuelo del Plus Ultra (1926).",
        "Recuerda el vuelo del Plus Ultra (mil novecientos veintiséis).",
    ),
    (
        "novel",
        S_DEFIN,
        "Siguió la dictadura, 1923-30, de Primo de Rivera.",
        "Siguió la dictadura, mil novecientos veintitrés a treinta, de Primo de Rivera.",
    ),
    ("novel", S_RSMP, "Llegó al trono en 1902.", "Llegó al trono en mil novecientos dos."),
    (
        "novel",
        S_RSMP,
        "Le afectó la crisis económica mundial de 1929.",
        "Le afectó la crisis económica mundial de mil novecientos veintinueve.",
    ),
    (
        "novel",
        S_CALZ,
        "Reinó hasta el 14 de abril de 1931.",
        "Reinó hasta el catorce de abril de mil novecientos treinta y uno.",
    ),
    (
        "novel",
        S_CALZ,
        "Murió el 28 de febrero de 1941 en Roma.",
        "Murió el veintiocho de febrero de mil novecientos cuarenta y uno en Roma.",
    ),
    (
        "invoice",
        S_SERIUS,
        "Los libros llevan un tipo del 4% (IVA superreducido).",
        "Los libros llevan un tipo del cuatro por ciento (IVA superreducido).",
    ),
    (
        "invoice",
        S_SERIUS,
        "La papelería paga el 21% (IVA general).",
        "La papelería paga el veintiuno por ciento (IVA general).",
    ),
    (
        "invoice",
        S_SERIUS,
        "Así lo dice el Artículo 90 LIVA.",
        "Así lo dice el Artículo noventa LIVA.",
    ),
    (
        "timetable",
        S_ANDINF,
        "El 29,3% de los trenes llegaron tarde.",
        "El veintinueve coma tres por ciento de los trenes llegaron tarde.",
    ),
    (
        "timetable",
        S_ANDINF,
        "El retraso medio fue de solo 30 segundos.",
        "El retraso medio fue de solo treinta segundos.",
    ),
    (
        "timetable",
        S_ANDINF,
        "La red soportó 26,2 millones de pasajeros.",
        "La red soportó veintiséis coma dos millones de pasajeros.",
    ),
    (
        "timetable",
        S_ANDINF,
        "Los retrasos promediaron 13,3 y 7,8 minutos.",
        "Los retrasos promediaron trece coma tres y siete coma ocho minutos.",
    ),
    (
        "timetable",
        S_NOTMAD,
        "Pasan trenes cada 20 minutos hasta la Terminal 4.",
        "Pasan trenes cada veinte minutos hasta la Terminal cuatro.",
    ),
    (
        "timetable",
        S_NOTMAD,
        "La usan los más de 75.000 usuarios diarios.",
        "La usan los más de setenta y cinco mil usuarios diarios.",
    ),
    (
        "timetable",
        S_NOTMAD,
        "Habrá un abono mensual de 20 euros.",
        "Habrá un abono mensual de veinte euros.",
    ),
    (
        "timetable",
        S_KNOWL,
        "Ocurrió el 11 de marzo de 2004.",
        "Ocurrió el once de marzo de dos mil cuatro.",
    ),
    (
        "timetable",
        S_KNOWL,
        "La longitud total atraviesa 370 km.",
        "La longitud total atraviesa trescientos setenta kilómetros.",
    ),
    (
        "timetable",
        S_KNOWL,
        "La línea se construyó en 1851 entre Madrid y Aranjuez.",
        "La línea se construyó en mil ochocientos cincuenta y uno entre Madrid y Aranjuez.",
    ),
    (
        "timetable",
        S_TRIB,
        "Este lunes 22 de septiembre no hay servicio.",
        "Este lunes veintidós de septiembre no hay servicio.",
    ),
    (
        "timetable",
        S_TRIB,
        "Atenderá de 9:00 de la mañana a 1:00 de la tarde.",
        "Atenderá de nueve de la mañana a una de la tarde.",
    ),
    (
        "timetable",
        S_TRIB,
        "Se reanudarán el martes 23 en sus horarios normales.",
        "Se reanudarán el martes veintitrés en sus horarios normales.",
    ),
    (
        "other",
        S_HOY,
        "Llamen al teléfono 927 53 01 04 para pedir cita.",
        "Llamen al teléfono novecientos veintisiete cincuenta y tres cero uno cero cuatro para pedir cita.",
    ),
    (
        "other",
        S_HOY,
        "La Diputación aporta 25.000 euros para el suelo.",
        "La Diputación aporta veinticinco mil euros para el suelo.",
    ),
    (
        "other",
        S_BOCM,
        "Se publicó el 12 de diciembre de 2001.",
        "Se publicó el doce de diciembre de dos mil uno.",
    ),
    (
        "other",
        S_BOCM,
        "Lo regula el artículo 49 de la ley.",
        "Lo regula el artículo cuarenta y nueve de la ley.",
    ),
    (
        "sports",
        S_NGIP,
        "El Real Madrid se llevó el clásico (2-1).",
        "El Real Madrid se llevó el clásico (dos a uno).",
    ),
    ("sports", S_NGIP, "Mingueza marcó en el minuto 60.", "Mingueza marcó en el minuto sesenta."),
    (
        "sports",
        S_NGIP,
        "Benzema marcó primero y Kroos, en el 28.",
        "Benzema marcó primero y Kroos, en el veintiocho.",
    ),
    (
        "sports",
        S_NGIP,
        "Casemiro fue expulsado en el minuto 91.",
        "Casemiro fue expulsado en el minuto noventa y uno.",
    ),
    (
        "sports",
        S_HERALDO,
        "Actualizado: 01 de febrero de 2026 a las 08:44",
        "Actualizado: uno de febrero de dos mil veintiséis a las ocho y cuarenta y cuatro",
    ),
    (
        "sports",
        S_HERALDO,
        "Fue en la jornada 22 de LaLiga.",
        "Fue en la jornada veintidós de LaLiga.",
    ),
    (
        "sports",
        S_HERALDO,
        "Tras 22 fechas, la diferencia es de un punto.",
        "Tras veintidós fechas, la diferencia es de un punto.",
    ),
    (
        "sports",
        S_HERALDO,
        "Barcelona con 55 puntos y Real Madrid con 54.",
        "Barcelona con cincuenta y cinco puntos y Real Madrid con cincuenta y cuatro.",
    ),
    (
        "sports",
        S_HERALDO,
        "Ganó con un penal al minuto 99.",
        "Ganó con un penal al minuto noventa y nueve.",
    ),
    (
        "sports",
        S_HERALDO,
        "El diario fue fundado en 1979.",
        "El diario fue fundado en mil novecientos setenta y nueve.",
    ),
    (
        "sports",
        S_OK3,
        "Juega este domingo (16:15 horas) en el Bernabéu.",
        "Juega este domingo (dieciséis y quince horas) en el Bernabéu.",
    ),
    (
        "sports",
        S_OK3,
        "Perdió en el partido de la jornada 15 de Liga.",
        "Perdió en el partido de la jornada quince de Liga.",
    ),
    (
        "sports",
        S_JMAYA,
        "Ocupa la cima del torneo con 66 unidades.",
        "Ocupa la cima del torneo con sesenta y seis unidades.",
    ),
    (
        "sports",
        S_JMAYA,
        "Kroos puso el 2-0 de falta al minuto 28.",
        "Kroos puso el dos a cero de falta al minuto veintiocho.",
    ),
    ("sports", S_JMAYA, "Mingueza hizo el 2-1 (60).", "Mingueza hizo el dos a uno (sesenta)."),
    (
        "sports",
        S_JMAYA,
        "El Athletic empató 0-0 con el Alavés.",
        "El Athletic empató cero a cero con el Alavés.",
    ),
    ("sports", S_JMAYA, "Cayó tras 13 partidos sin ganar.", "Cayó tras trece partidos sin ganar."),
    (
        "sports",
        S_BERNA,
        "Los dos comparten la cima con 38 puntos.",
        "Los dos comparten la cima con treinta y ocho puntos.",
    ),
    (
        "sports",
        S_BERNA,
        "Fue la última jornada del 2022.",
        "Fue la última jornada del dos mil veintidós.",
    ),
    (
        "news",
        S_PRONTO,
        "El 2 de junio del 2014, Juan Carlos I anunciaba su marcha.",
        "El dos de junio del dos mil catorce, Juan Carlos primero anunciaba su marcha.",
    ),
    (
        "news",
        S_KIDDLE,
        "La ley se publicó a las 0:00 horas del 19 de junio.",
        "La ley se publicó a las cero horas del diecinueve de junio.",
    ),
    (
        "news",
        S_KIDDLE,
        "Reinaría con el nombre de Felipe VI.",
        "Reinaría con el nombre de Felipe sexto.",
    ),
    (
        "news",
        S_KIDDLE,
        "Desde 2010 tuvo problemas de salud.",
        "Desde dos mil diez tuvo problemas de salud.",
    ),
    (
        "news",
        S_DIEZ,
        "A las 10.30 horas de la mañana del 2 de junio se supo.",
        "A las diez y treinta horas de la mañana del dos de junio se supo.",
    ),
    (
        "news",
        S_DIEZ,
        "Tenía 76 años y 39 en el trono.",
        "Tenía setenta y seis años y treinta y nueve en el trono.",
    ),
    (
        "news",
        S_DIEZ,
        "Lo anunció a las 10.30 h en Moncloa.",
        "Lo anunció a las diez y treinta horas en Moncloa.",
    ),
    (
        "news",
        S_MERCO,
        "Fue proclamado rey el 22 de noviembre de 1975, con 37 años.",
        "Fue proclamado rey el veintidós de noviembre de mil novecientos setenta y cinco, con treinta y siete años.",
    ),
    (
        "news",
        S_MERCO,
        "Hubo 233 favorables, 5 en contra y 20 abstenciones.",
        "Hubo doscientos treinta y tres favorables, cinco en contra y veinte abstenciones.",
    ),
    (
        "news",
        S_MERCO,
        "La ley salió con el 90% de los votos.",
        "La ley salió con el noventa por ciento de los votos.",
    ),
]
