"""Where in a take a word starts, for a sound cue written inside a line (`{sfx: NAME}`).

The take's line sits at `[start_sample, end_sample)` of the scene; `text` is the words it says,
`words` their speech-recognition times and `segments` its chunks (`timeline.Cue`). The cue's
word (`SoundAnchor.word`, an index among the words of `text`) is found, best first:

1. at that word's start in the stored word times (one (start s, end s) per word; a cue after the
   last word: the last word's end). Word times come only from what the take's record holds;
   the mix never runs speech recognition;
2. else, for a take made of two or more chunks, at the nearest chunk edge: the start of each
   chunk and the end of the last, the nearest by characters of the line's words (single spaces)
   from the word's first character, the earlier edge on a tie;
3. else in proportion: the word's first character over the characters of the line's words,
   times the take's length (`round(length * offset / characters)`).
"""

from __future__ import annotations

from drama_cli.mix.span import seconds_to_samples


def word_start_sample(line, word: int) -> int:
    """The scene sample where word `word` of `line` starts (module docstring); `line` has
    `start_sample`, `end_sample`, `text`, `words` and `segments` (`timeline.Cue`). A word
    past the last is the end of the words: the last word's end, the last chunk's end, or the
    take's end."""
    said = line.text.split()
    word = max(0, min(word, len(said)))
    if said and len(line.words) == len(said):
        seconds = line.words[word].start_s if word < len(said) else line.words[-1].end_s
        return line.start_sample + seconds_to_samples(seconds)
    offsets = _word_offsets(said)
    if len(line.segments) >= 2:
        return line.start_sample + seconds_to_samples(_nearest_edge(line.segments, offsets, word))
    length = line.end_sample - line.start_sample
    return line.start_sample + (round(length * offsets[word] / offsets[-1]) if offsets[-1] else 0)


def _word_offsets(said: list[str]) -> list[int]:
    """The first character of each word in `" ".join(said)`, then that text's length."""
    offsets, at = [], 0
    for text in said:
        offsets.append(at)
        at += len(text) + 1
    return offsets + [max(at - 1, 0)]


def _nearest_edge(segments, offsets: list[int], word: int) -> float:
    """Seconds into the take of the chunk edge nearest (by characters) to word `word`."""
    edges, first = [], 0
    for text, start_s, _ in segments:
        edges.append((offsets[min(first, len(offsets) - 1)], start_s))
        first += len(text.split())
    edges.append((offsets[-1], segments[-1][2]))
    return min(edges, key=lambda edge: abs(edge[0] - offsets[word]))[1]
