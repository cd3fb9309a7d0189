//! Graph generators (stub; being written).
