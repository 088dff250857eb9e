# Unit tests of the reference interpreter (paths relative to tests/).
