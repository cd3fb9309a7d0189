//! Edge-list parsers (stub; being written).
