//! `store`: the on-disk graph (stub).
