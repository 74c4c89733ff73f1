"""`python -m engine.testing PRESET DIR [--seed S] [--config-only] [--device D] [--set KEY=INT]`:
write a random checkpoint folder (`engine.testing.checkpoints.main`)."""

import sys

from engine.testing.checkpoints import main

sys.exit(main())
