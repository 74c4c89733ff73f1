"""Fixed numbers and patterns of Drama 3 shared by every engine module (docs/internals/model.md §1,
§4.1; docs/internals/codec.md).

Audio: the S2 codec runs at 44,100 Hz mono; one code frame covers 2048 samples, so frames come at
44,100 / 2048 ≈ 21.53 per second. Each frame holds 10 codes: codebook 0 (semantic, 4096
entries, the size of the main model's semantic band) and codebooks 1-9 (residual). A prompt row
is `[main, c0, ..., c9]`, so 11 columns.

Speakers: `<|speaker:0|>` ... `<|speaker:15|>`, written without leading zeros. `SPEAKER_TAG`
matches one such tag, its group 1 being the index as written (callers check it is at most
`MAX_SPEAKER`); `SPEAKER_TAG_PATTERN` is the same pattern as a string, to embed in larger
expressions (it has exactly one capturing group).
"""

from __future__ import annotations

import re

SAMPLE_RATE = 44_100  # Hz, codec input and output
HOP_SAMPLES = 2048  # audio samples per code frame
FRAMES_PER_SECOND = SAMPLE_RATE / HOP_SAMPLES  # about 21.53 frames per second

NUM_CODEBOOKS = 10  # codes per frame: 1 semantic + 9 residual
CODEBOOK_SIZE = 4096  # codes of codebook 0, also the semantic band of the main vocabulary

NUM_SPEAKERS = 16  # speaker tags the tokenizer holds
MAX_SPEAKER = NUM_SPEAKERS - 1  # highest speaker index (15)

SPEAKER_TAG_PATTERN = r"<\|speaker:(0|[1-9][0-9]*)\|>"
SPEAKER_TAG = re.compile(SPEAKER_TAG_PATTERN)
