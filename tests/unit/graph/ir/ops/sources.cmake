# Unit tests of the operator registry (paths relative to tests/).
