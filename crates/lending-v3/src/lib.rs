#![doc = include_str!("../README.md")]

pub mod bindings;
pub mod config;
pub mod error;
pub mod health;
pub mod liquidation;
pub mod math;
pub mod read;
pub mod rules;

pub use config::{ReserveConfig, UserConfig};
pub use error::LendingError;
pub use health::{
    CloseFactor, HealthReport, Isolation, LIQUIDATION_PRICE_DEFINITION, Position,
    SCENARIO_ASSUMPTION, Scenario, analyse, health,
};
pub use liquidation::{LiquidationPrice, NoLiquidationPrice, liquidation_price};
pub use math::{MathError, ReserveTerms, Totals, WAD};
pub use read::{
    AccountData, BaseCurrency, Contracts, EModeCategory, PositionRead, Rates, ReserveRead,
    UserReserve, read_position,
};
pub use rules::Rules;
