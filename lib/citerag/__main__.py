import sys

from citerag.cli import main

sys.exit(main())
