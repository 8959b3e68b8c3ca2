pub mod blt;
pub mod eqds;
pub mod fuzzy;
pub mod ndp;
pub mod packet_pair;
pub mod pp_law;
pub mod pp_timers;
pub mod rlm;
