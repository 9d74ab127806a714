// trybuild suite: see ui-tests/
