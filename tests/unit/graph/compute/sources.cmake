# Unit tests of the Compute language (paths relative to tests/).
