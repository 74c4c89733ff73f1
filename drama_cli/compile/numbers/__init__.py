"""Numbers, dates, times, amounts and abbreviations of English, German, French and Spanish text
said as words (docs/guide/pronunciation.md, "Number and symbol words").

`recognise.expressions` finds each expression whole (a number with its sign, separators, suffix,
unit, scale word and currency; a time; a date; a range; a fraction) and says it, or leaves it
exactly as written and says why. `words` says the parts with `num2words` (cardinals, ordinals,
years) and adds what `num2words` lacks: German case endings, Spanish and French gender and
apocope (`grammar`, with the noun genders of `nouns`). `english` holds what only English says
(game scores, amounts used as adjectives, days next to month names). `codes` says
identifiers of capitals and digits (`221B`, `COVID-19`, `Boeing 737`) as announcers do. `rules`
holds each language's tables. A run of three-digit groups longer than one number's is a table,
each number read alone, and the whole is linear in the length of the line.
"""
