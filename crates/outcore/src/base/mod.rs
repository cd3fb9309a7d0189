//! `base`: what every floor may use and that knows nothing of graphs or
//! files: seeded random streams ([`rng`]), the in-memory radix sort of
//! records ([`radix`]) and LEB128 varints ([`leb128`]). Like `error`,
//! `size`, `cancel` and `progress` beside it, it imports no layer above.

pub(crate) mod leb128;
pub(crate) mod radix;
pub(crate) mod rng;
