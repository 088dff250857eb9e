# Operator registry entries, one file per operator family (paths relative to graph/).
