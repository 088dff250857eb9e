# Unit tests of libatoll (paths relative to tests/).
