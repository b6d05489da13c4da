//! The reads of one position, all at one pinned block, in three Multicall3 round trips (a
//! fourth only on 3.0–3.1 markets whose eMode category has a price source):
//!
//! | Round trip | Calls |
//! |---|---|
//! | 1 | block pin; PoolAddressesProvider `getPool`, `getPriceOracle`, `getPoolDataProvider`, `getMarketId` |
//! | 2 | Pool `POOL_REVISION`, `getReservesList`, `getUserConfiguration`, `getUserEMode`, `getUserAccountData`; AaveOracle `BASE_CURRENCY`, `BASE_CURRENCY_UNIT`; data provider `getAllReservesTokens` |
//! | 3 | per reserve: Pool `getReserveData` and data provider `getUserReserveData`; per reserve the wallet uses as collateral or borrows: AaveOracle `getAssetPrice` and `getSourceOfAsset`; with an eMode category, every eMode getter of 3.0 to 3.7, each allowed to fail |
//! | 4 | 3.0–3.1 with an eMode price source: its AaveOracle price |
//!
//! `getUserReserveData` goes to every reserve, not only those the configuration bitmap names,
//! so a supply whose collateral flag is off is listed too.

use alloy::primitives::{Address, U256};
use chain_read::{Batch, BatchResults, BlockPin, CallFailure, PinnedReader, Slot};

use crate::bindings::{IAaveOracle, IPool, IPoolAddressesProvider, IPoolDataProvider};
use crate::config::{ReserveConfig, UserConfig};
use crate::error::LendingError;
use crate::rules::{EModeModel, Rules};

/// The market's contracts, as the provider resolved them at the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contracts {
    /// PoolAddressesProvider (the one configured address).
    pub pool_addresses_provider: Address,
    /// `getPool()`.
    pub pool: Address,
    /// `getPriceOracle()` (AaveOracle).
    pub price_oracle: Address,
    /// `getPoolDataProvider()`.
    pub pool_data_provider: Address,
    /// `getMarketId()`, when it answers.
    pub market_id: Option<String>,
}

/// The oracle's base currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseCurrency {
    /// `BASE_CURRENCY()`: the zero address for USD.
    pub address: Address,
    /// `BASE_CURRENCY_UNIT()`, e.g. 10⁸.
    pub unit: U256,
}

impl BaseCurrency {
    /// Whether prices are in USD.
    pub fn is_usd(&self) -> bool {
        self.address.is_zero()
    }

    /// The number of decimals when the unit is a power of ten.
    pub fn decimals(&self) -> Option<u8> {
        let mut unit = self.unit;
        let ten = U256::from(10u8);
        let mut decimals = 0u8;
        while unit > U256::from(1u8) {
            if unit % ten != U256::ZERO {
                return None;
            }
            unit /= ten;
            decimals = decimals.checked_add(1)?;
        }
        (unit == U256::from(1u8)).then_some(decimals)
    }
}

/// `Pool.getUserAccountData`, as the protocol computed it at the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccountData {
    /// Collateral in base currency.
    pub total_collateral_base: U256,
    /// Debt in base currency.
    pub total_debt_base: U256,
    /// Borrowing power left in base currency.
    pub available_borrows_base: U256,
    /// Average liquidation threshold, basis points.
    pub current_liquidation_threshold: U256,
    /// Average loan to value, basis points.
    pub ltv: U256,
    /// Health factor, 18 decimals (`U256::MAX` without debt).
    pub health_factor: U256,
}

/// The wallet's eMode category, from every getter that answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EModeCategory {
    /// Category id.
    pub id: u8,
    /// Its label.
    pub label: Option<String>,
    /// LTV, basis points.
    pub ltv: u16,
    /// Liquidation threshold, basis points.
    pub liquidation_threshold: u16,
    /// Liquidation bonus, basis points (10⁴ included).
    pub liquidation_bonus: u16,
    /// 3.0–3.1: the price source that replaces the oracle price of the category's assets
    /// (`None` when unset or on later versions).
    pub price_source: Option<Address>,
    /// That source's AaveOracle price, read in round trip 4.
    pub price_source_price: Option<U256>,
    /// 3.2+: reserves (by id) whose collateral gets the category's parameters.
    pub collateral_bitmap: Option<u128>,
    /// 3.2+: reserves (by id) borrowable in the category.
    pub borrowable_bitmap: Option<u128>,
    /// 3.7+: whether only the category's collateral counts.
    pub isolated: Option<bool>,
    /// The getters that answered, e.g. `getEModeCategoryData`.
    pub getters: Vec<&'static str>,
}

impl EModeCategory {
    /// Whether the category's parameters apply to the reserve with id `index` and
    /// configuration `config`.
    pub fn applies_to(&self, rules: &Rules, index: usize, config: &ReserveConfig) -> bool {
        match rules.emode {
            EModeModel::ReserveCategory => config.emode_category == self.id,
            EModeModel::CollateralBitmap => self
                .collateral_bitmap
                .is_some_and(|bitmap| index < 128 && (bitmap >> index) & 1 == 1),
        }
    }
}

/// A reserve's current rates, in ray (10²⁷ = 100 % a year).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rates {
    /// Variable borrow rate.
    pub variable_borrow: U256,
    /// Stable borrow rate offered to new stable borrows (zero from 3.2).
    pub stable_borrow: U256,
    /// Supply rate.
    pub liquidity: U256,
}

/// What the wallet holds in one reserve (`getUserReserveData`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserReserve {
    /// aToken balance.
    pub a_token_balance: U256,
    /// Stable-rate debt.
    pub stable_debt: U256,
    /// Variable-rate debt.
    pub variable_debt: U256,
    /// The wallet's own stable rate, ray.
    pub stable_borrow_rate: U256,
    /// The wallet's collateral flag for the reserve.
    pub usage_as_collateral_enabled: bool,
}

/// One reserve of the market, with the wallet's part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReserveRead {
    /// Reserve id (its place in `getReservesList`).
    pub index: usize,
    /// The underlying asset.
    pub asset: Address,
    /// Its symbol as the data provider lists it.
    pub symbol: Option<String>,
    /// Decoded configuration.
    pub config: ReserveConfig,
    /// Current rates.
    pub rates: Rates,
    /// Debt borrowed against it in isolation mode, 2 decimals (up to 3.6).
    pub isolation_mode_total_debt: U256,
    /// The wallet's balances.
    pub user: UserReserve,
    /// The wallet's configuration bit: collateral.
    pub using_as_collateral: bool,
    /// The wallet's configuration bit: borrowing.
    pub borrowing: bool,
    /// AaveOracle `getAssetPrice`, read for reserves the wallet uses as collateral or borrows.
    pub price: Option<U256>,
    /// AaveOracle `getSourceOfAsset`, read with the price.
    pub source: Option<Result<Address, CallFailure>>,
}

impl ReserveRead {
    /// Whether the wallet has anything in the reserve.
    pub fn is_position(&self) -> bool {
        self.using_as_collateral
            || self.borrowing
            || !self.user.a_token_balance.is_zero()
            || !self.user.variable_debt.is_zero()
            || !self.user.stable_debt.is_zero()
    }

    /// The label used in sentences: the symbol, or the address.
    pub fn label(&self) -> String {
        self.symbol
            .clone()
            .unwrap_or_else(|| self.asset.to_checksum(None))
    }
}

/// Everything read about one wallet in one market at one block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionRead {
    /// The block of every read.
    pub block: BlockPin,
    /// The wallet.
    pub wallet: Address,
    /// The market's contracts.
    pub contracts: Contracts,
    /// The rules of the Pool's revision.
    pub rules: Rules,
    /// The oracle's base currency.
    pub base_currency: BaseCurrency,
    /// The wallet's configuration bitmap.
    pub user_config: UserConfig,
    /// The wallet's eMode category id (0 = none).
    pub emode_id: u8,
    /// Its parameters when `emode_id` is not 0.
    pub emode: Option<EModeCategory>,
    /// `getUserAccountData`.
    pub account_data: AccountData,
    /// Every reserve of the market, in id order.
    pub reserves: Vec<ReserveRead>,
    /// JSON-RPC HTTP requests the reads took.
    pub round_trips: u32,
}

fn required<T>(value: Result<T, CallFailure>, what: &str) -> Result<T, LendingError> {
    value.map_err(|failure| LendingError::Read {
        what: what.to_owned(),
        failure,
    })
}

fn non_zero(address: Address, what: &str) -> Result<Address, LendingError> {
    if address.is_zero() {
        return Err(LendingError::Unexpected(format!(
            "{what} is the zero address: the market is not set up"
        )));
    }
    Ok(address)
}

/// Reads `wallet`'s position in the market of `provider`.
pub async fn read_position(
    reader: &PinnedReader,
    provider: Address,
    wallet: Address,
) -> Result<PositionRead, LendingError> {
    let contracts = resolve(reader, provider).await?;
    let account = read_account(reader, &contracts, wallet).await?;
    let mut reserves = read_reserves(reader, &contracts, wallet, &account).await?;
    let emode = match reserves.emode.take() {
        Some(slots) => Some(slots.decode(reader, &contracts, &account.rules).await?),
        None => None,
    };
    let block = reader
        .block()
        .ok_or_else(|| LendingError::Unexpected("no block was pinned".to_owned()))?;
    Ok(PositionRead {
        block,
        wallet,
        contracts,
        rules: account.rules,
        base_currency: account.base_currency,
        user_config: account.user_config,
        emode_id: account.emode_id,
        emode,
        account_data: account.account_data,
        reserves: reserves.reserves,
        round_trips: reader.round_trips(),
    })
}

/// Round trip 1: the block pin and the market's contracts.
async fn resolve(reader: &PinnedReader, provider: Address) -> Result<Contracts, LendingError> {
    let mut batch = Batch::new();
    let pool = batch.add(provider, &IPoolAddressesProvider::getPoolCall {});
    let oracle = batch.add(provider, &IPoolAddressesProvider::getPriceOracleCall {});
    let data_provider = batch.add(
        provider,
        &IPoolAddressesProvider::getPoolDataProviderCall {},
    );
    let market = batch.add(provider, &IPoolAddressesProvider::getMarketIdCall {});
    let results = reader.execute(batch).await?;
    Ok(Contracts {
        pool_addresses_provider: provider,
        pool: non_zero(
            required(results.get(pool), "PoolAddressesProvider.getPool")?,
            "PoolAddressesProvider.getPool",
        )?,
        price_oracle: non_zero(
            required(results.get(oracle), "PoolAddressesProvider.getPriceOracle")?,
            "PoolAddressesProvider.getPriceOracle",
        )?,
        pool_data_provider: non_zero(
            required(
                results.get(data_provider),
                "PoolAddressesProvider.getPoolDataProvider",
            )?,
            "PoolAddressesProvider.getPoolDataProvider",
        )?,
        market_id: results.get(market).ok(),
    })
}

/// What round trip 2 gives.
struct Account {
    rules: Rules,
    reserves: Vec<Address>,
    symbols: Vec<(Address, String)>,
    user_config: UserConfig,
    emode_id: u8,
    account_data: AccountData,
    base_currency: BaseCurrency,
}

/// Round trip 2: the Pool's revision, the reserves and the wallet's account.
async fn read_account(
    reader: &PinnedReader,
    contracts: &Contracts,
    wallet: Address,
) -> Result<Account, LendingError> {
    let pool = contracts.pool;
    let oracle = contracts.price_oracle;
    let mut batch = Batch::new();
    let revision = batch.add(pool, &IPool::POOL_REVISIONCall {});
    let list = batch.add(pool, &IPool::getReservesListCall {});
    let config = batch.add(pool, &IPool::getUserConfigurationCall { user: wallet });
    let emode = batch.add(pool, &IPool::getUserEModeCall { user: wallet });
    let account = batch.add(pool, &IPool::getUserAccountDataCall { user: wallet });
    let base = batch.add(oracle, &IAaveOracle::BASE_CURRENCYCall {});
    let unit = batch.add(oracle, &IAaveOracle::BASE_CURRENCY_UNITCall {});
    let tokens = batch.add(
        contracts.pool_data_provider,
        &IPoolDataProvider::getAllReservesTokensCall {},
    );
    let results = reader.execute(batch).await?;

    let revision = required(results.get(revision), "Pool.POOL_REVISION")?;
    let rules = u64::try_from(revision)
        .ok()
        .and_then(Rules::for_revision)
        .ok_or_else(|| {
            LendingError::Unexpected(format!(
                "Pool {} answers POOL_REVISION {revision}, which no Aave V3 Pool has",
                contracts.pool
            ))
        })?;
    let emode_id = required(results.get(emode), "Pool.getUserEMode")?;
    let emode_id = u8::try_from(emode_id)
        .map_err(|_| LendingError::Unexpected(format!("Pool.getUserEMode answered {emode_id}")))?;
    let account = required(results.get(account), "Pool.getUserAccountData")?;
    Ok(Account {
        rules,
        reserves: required(results.get(list), "Pool.getReservesList")?,
        symbols: results
            .get(tokens)
            .map(|tokens| {
                tokens
                    .into_iter()
                    .map(|t| (t.tokenAddress, t.symbol))
                    .collect()
            })
            .unwrap_or_default(),
        user_config: UserConfig(required(results.get(config), "Pool.getUserConfiguration")?.data),
        emode_id,
        account_data: AccountData {
            total_collateral_base: account.totalCollateralBase,
            total_debt_base: account.totalDebtBase,
            available_borrows_base: account.availableBorrowsBase,
            current_liquidation_threshold: account.currentLiquidationThreshold,
            ltv: account.ltv,
            health_factor: account.healthFactor,
        },
        base_currency: BaseCurrency {
            address: required(results.get(base), "AaveOracle.BASE_CURRENCY")?,
            unit: required(results.get(unit), "AaveOracle.BASE_CURRENCY_UNIT")?,
        },
    })
}

/// The pending eMode reads of round trip 3.
struct EModeSlots {
    id: u8,
    legacy: Slot<IPool::getEModeCategoryDataCall>,
    collateral_config: Slot<IPool::getEModeCategoryCollateralConfigCall>,
    collateral_bitmap: Slot<IPool::getEModeCategoryCollateralBitmapCall>,
    borrowable_bitmap: Slot<IPool::getEModeCategoryBorrowableBitmapCall>,
    label: Slot<IPool::getEModeCategoryLabelCall>,
    isolated: Slot<IPool::getIsEModeCategoryIsolatedCall>,
    results: Option<BatchResults>,
}

impl EModeSlots {
    fn add(batch: &mut Batch, pool: Address, id: u8) -> Self {
        Self {
            id,
            legacy: batch.add(pool, &IPool::getEModeCategoryDataCall { id }),
            collateral_config: batch.add(pool, &IPool::getEModeCategoryCollateralConfigCall { id }),
            collateral_bitmap: batch.add(pool, &IPool::getEModeCategoryCollateralBitmapCall { id }),
            borrowable_bitmap: batch.add(pool, &IPool::getEModeCategoryBorrowableBitmapCall { id }),
            label: batch.add(pool, &IPool::getEModeCategoryLabelCall { id }),
            isolated: batch.add(pool, &IPool::getIsEModeCategoryIsolatedCall { id }),
            results: None,
        }
    }

    /// The category as the revision defines it; round trip 4 when a 3.0–3.1 category has a
    /// price source.
    async fn decode(
        self,
        reader: &PinnedReader,
        contracts: &Contracts,
        rules: &Rules,
    ) -> Result<EModeCategory, LendingError> {
        let results = self
            .results
            .ok_or_else(|| LendingError::Unexpected("eMode reads were not sent".to_owned()))?;
        let mut getters = Vec::new();
        let mut answered = |name: &'static str, ok: bool| {
            if ok {
                getters.push(name);
            }
        };
        let legacy = results.get(self.legacy);
        answered("getEModeCategoryData", legacy.is_ok());
        let collateral_config = results.get(self.collateral_config);
        answered(
            "getEModeCategoryCollateralConfig",
            collateral_config.is_ok(),
        );
        let collateral_bitmap = results.get(self.collateral_bitmap);
        answered(
            "getEModeCategoryCollateralBitmap",
            collateral_bitmap.is_ok(),
        );
        let borrowable_bitmap = results.get(self.borrowable_bitmap);
        answered(
            "getEModeCategoryBorrowableBitmap",
            borrowable_bitmap.is_ok(),
        );
        let label = results.get(self.label);
        answered("getEModeCategoryLabel", label.is_ok());
        let isolated = results.get(self.isolated);
        answered("getIsEModeCategoryIsolated", isolated.is_ok());

        let mut category = match rules.emode {
            EModeModel::ReserveCategory => {
                let data = required(legacy, "Pool.getEModeCategoryData")?;
                EModeCategory {
                    id: self.id,
                    label: Some(data.label),
                    ltv: data.ltv,
                    liquidation_threshold: data.liquidationThreshold,
                    liquidation_bonus: data.liquidationBonus,
                    price_source: (!data.priceSource.is_zero()).then_some(data.priceSource),
                    price_source_price: None,
                    collateral_bitmap: None,
                    borrowable_bitmap: None,
                    isolated: None,
                    getters,
                }
            }
            EModeModel::CollateralBitmap => {
                let config = required(collateral_config, "Pool.getEModeCategoryCollateralConfig")?;
                let bitmap = required(collateral_bitmap, "Pool.getEModeCategoryCollateralBitmap")?;
                EModeCategory {
                    id: self.id,
                    label: label.ok().or_else(|| legacy.ok().map(|l| l.label)),
                    ltv: config.ltv,
                    liquidation_threshold: config.liquidationThreshold,
                    liquidation_bonus: config.liquidationBonus,
                    price_source: None,
                    price_source_price: None,
                    collateral_bitmap: Some(bitmap),
                    borrowable_bitmap: borrowable_bitmap.ok(),
                    isolated: isolated.ok(),
                    getters,
                }
            }
        };
        if let Some(source) = category.price_source {
            let (_, price) = reader
                .call(
                    contracts.price_oracle,
                    &IAaveOracle::getAssetPriceCall { asset: source },
                )
                .await?;
            category.price_source_price = Some(required(
                price,
                "AaveOracle.getAssetPrice of the eMode price source",
            )?);
        }
        Ok(category)
    }
}

/// What round trip 3 gives.
struct Reserves {
    reserves: Vec<ReserveRead>,
    emode: Option<EModeSlots>,
}

struct ReserveSlots {
    data: Slot<IPool::getReserveDataCall>,
    user: Slot<IPoolDataProvider::getUserReserveDataCall>,
    price: Option<Slot<IAaveOracle::getAssetPriceCall>>,
    source: Option<Slot<IAaveOracle::getSourceOfAssetCall>>,
}

/// Round trip 3: every reserve, the wallet's balances, the prices and sources of what it uses,
/// and its eMode category.
async fn read_reserves(
    reader: &PinnedReader,
    contracts: &Contracts,
    wallet: Address,
    account: &Account,
) -> Result<Reserves, LendingError> {
    let mut batch = Batch::new();
    let slots: Vec<ReserveSlots> = account
        .reserves
        .iter()
        .enumerate()
        .map(|(index, asset)| {
            let touched = account.user_config.touches(index);
            ReserveSlots {
                data: batch.add(contracts.pool, &IPool::getReserveDataCall { asset: *asset }),
                user: batch.add(
                    contracts.pool_data_provider,
                    &IPoolDataProvider::getUserReserveDataCall {
                        asset: *asset,
                        user: wallet,
                    },
                ),
                price: touched.then(|| {
                    batch.add(
                        contracts.price_oracle,
                        &IAaveOracle::getAssetPriceCall { asset: *asset },
                    )
                }),
                source: touched.then(|| {
                    batch.add(
                        contracts.price_oracle,
                        &IAaveOracle::getSourceOfAssetCall { asset: *asset },
                    )
                }),
            }
        })
        .collect();
    let mut emode = (account.emode_id != 0)
        .then(|| EModeSlots::add(&mut batch, contracts.pool, account.emode_id));
    let results = reader.execute(batch).await?;

    let mut reserves = Vec::with_capacity(slots.len());
    for (index, (asset, slot)) in account.reserves.iter().zip(&slots).enumerate() {
        let label = |getter: &str| format!("{getter} of {asset}");
        let data = required(results.get(slot.data), &label("Pool.getReserveData"))?;
        let user = required(
            results.get(slot.user),
            &label("PoolDataProvider.getUserReserveData"),
        )?;
        let price = match slot.price {
            Some(price) => Some(required(
                results.get(price),
                &label("AaveOracle.getAssetPrice"),
            )?),
            None => None,
        };
        reserves.push(ReserveRead {
            index,
            asset: *asset,
            symbol: account
                .symbols
                .iter()
                .find(|(address, _)| address == asset)
                .map(|(_, symbol)| symbol.clone()),
            config: ReserveConfig::decode(data.configuration.data),
            rates: Rates {
                variable_borrow: U256::from(data.currentVariableBorrowRate),
                stable_borrow: U256::from(data.currentStableBorrowRate),
                liquidity: U256::from(data.currentLiquidityRate),
            },
            isolation_mode_total_debt: U256::from(data.isolationModeTotalDebt),
            user: UserReserve {
                a_token_balance: user.currentATokenBalance,
                stable_debt: user.currentStableDebt,
                variable_debt: user.currentVariableDebt,
                stable_borrow_rate: user.stableBorrowRate,
                usage_as_collateral_enabled: user.usageAsCollateralEnabled,
            },
            using_as_collateral: account.user_config.is_using_as_collateral(index),
            borrowing: account.user_config.is_borrowing(index),
            price,
            source: slot.source.map(|source| results.get(source)),
        });
    }
    if let Some(slots) = emode.as_mut() {
        slots.results = Some(results);
    }
    Ok(Reserves { reserves, emode })
}
