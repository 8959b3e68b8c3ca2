pub mod aimd;
pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod decbit;
pub mod generic;
pub mod swift;
pub mod vegas;
