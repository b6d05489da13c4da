#![doc = include_str!("../README.md")]

pub mod detect;
pub mod error;
pub mod mitigation;
pub mod pool;
pub mod sandwich;

pub use detect::{
    DETECTION_RULE, SandwichMatch, SwapEvent, SwapLog, SwapRef, VictimRef, detect_sandwiches,
};
pub use error::MevError;
pub use mitigation::{
    SplitScenario, ToleranceScenario, split_scenario, tolerance_scenario, tolerance_scenarios,
};
pub use pool::{BalancerPair, ConstantProductPool, PoolKind, PoolModel};
pub use sandwich::{
    AttackOptimum, BoundMethod, Method, OptimumLocation, SandwichOutcome, VictimSwap,
    attack_optimum, closed_form_a_max, max_front_run, simulate_sandwich,
};
