//! The library's integration tests, in one binary (one link instead of one
//! per file): each module is one area, against the in-memory references.

mod betweenness;
mod bfs_order;
mod common;
mod compressed;
mod compressed_csr;
mod corruption;
mod delta;
mod external_engine;
mod external_ids;
mod graphalytics;
mod greedy;
mod grouped;
mod layers;
mod lcc;
mod max_degree;
mod parquet_in;
mod partition;
mod pipelined_out;
mod planned;
mod planner;
mod queries;
mod relabel;
mod results;
mod shards;
mod shards_ckpt;
mod sssp_kcore;
mod store_roundtrip;
mod stream_engine;
mod stream_vp;
mod string_ids;
mod triangles;
mod update;
mod vertex_order;
mod walks;
mod wide_csr;
