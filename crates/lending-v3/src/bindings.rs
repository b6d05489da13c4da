//! `sol!` call types of the Aave V3 contracts this crate reads. Only encoders and decoders:
//! every call goes through a `chain_read` Multicall3 batch.
//!
//! The ABIs are those of aave-dao/aave-v3-origin (`IPool.sol`, `IPoolDataProvider.sol`,
//! `IAaveOracle.sol`, `IPoolAddressesProvider.sol`) and of `@aave/core-v3` 1.19.3 (v3.0.x).
//! Where the two differ the getter is declared once per shape and read with `allowFailure`:
//! `getEModeCategoryData` (3.0–3.1; kept, deprecated, later) and the per-field eMode getters
//! of 3.2 and after. `getReserveData` is declared with the `ReserveDataLegacy` layout, which
//! is the 3.0 `ReserveData` and what every later version still returns.

#![allow(missing_docs)]

alloy::sol! {
    #![sol(all_derives)]
    /// The market's entry point: every other contract is resolved from it.
    interface IPoolAddressesProvider {
        function getMarketId() external view returns (string memory);
        function getPool() external view returns (address);
        function getPriceOracle() external view returns (address);
        function getPoolDataProvider() external view returns (address);
    }

    /// The Pool (and L2Pool, whose read getters are the same).
    interface IPool {
        struct ReserveConfigurationMap { uint256 data; }
        struct UserConfigurationMap { uint256 data; }
        struct ReserveDataLegacy {
            ReserveConfigurationMap configuration;
            uint128 liquidityIndex;
            uint128 currentLiquidityRate;
            uint128 variableBorrowIndex;
            uint128 currentVariableBorrowRate;
            uint128 currentStableBorrowRate;
            uint40 lastUpdateTimestamp;
            uint16 id;
            address aTokenAddress;
            address stableDebtTokenAddress;
            address variableDebtTokenAddress;
            address interestRateStrategyAddress;
            uint128 accruedToTreasury;
            uint128 unbacked;
            uint128 isolationModeTotalDebt;
        }
        struct EModeCategoryLegacy { uint16 ltv; uint16 liquidationThreshold; uint16 liquidationBonus; address priceSource; string label; }
        struct CollateralConfig { uint16 ltv; uint16 liquidationThreshold; uint16 liquidationBonus; }

        function POOL_REVISION() external view returns (uint256);
        function getReservesList() external view returns (address[] memory);
        function getUserConfiguration(address user) external view returns (UserConfigurationMap memory);
        function getUserEMode(address user) external view returns (uint256);
        function getUserAccountData(address user) external view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor);
        function getReserveData(address asset) external view returns (ReserveDataLegacy memory);
        function getEModeCategoryData(uint8 id) external view returns (EModeCategoryLegacy memory);
        function getEModeCategoryCollateralConfig(uint8 id) external view returns (CollateralConfig memory);
        function getEModeCategoryCollateralBitmap(uint8 id) external view returns (uint128);
        function getEModeCategoryBorrowableBitmap(uint8 id) external view returns (uint128);
        function getEModeCategoryLabel(uint8 id) external view returns (string memory);
        function getIsEModeCategoryIsolated(uint8 id) external view returns (bool);
    }

    /// AaveProtocolDataProvider.
    interface IPoolDataProvider {
        struct TokenData { string symbol; address tokenAddress; }
        function getAllReservesTokens() external view returns (TokenData[] memory);
        function getUserReserveData(address asset, address user) external view returns (uint256 currentATokenBalance, uint256 currentStableDebt, uint256 currentVariableDebt, uint256 principalStableDebt, uint256 scaledVariableDebt, uint256 stableBorrowRate, uint256 liquidityRate, uint40 stableRateLastUpdated, bool usageAsCollateralEnabled);
    }

    /// AaveOracle: prices in the market's base currency.
    interface IAaveOracle {
        function BASE_CURRENCY() external view returns (address);
        function BASE_CURRENCY_UNIT() external view returns (uint256);
        function getAssetPrice(address asset) external view returns (uint256);
        function getSourceOfAsset(address asset) external view returns (address);
    }
}
