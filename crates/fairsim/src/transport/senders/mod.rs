mod backlog;
pub mod blt;
pub mod dcqcn;
pub mod eqds;
pub mod fuzzy;
pub mod hpcc;
pub mod ndp;
pub mod packet_pair;
pub mod pp_law;
pub mod pp_timers;
#[cfg(test)]
mod pull_testing;
pub mod rlm;
pub mod roce;
