//! The contract interfaces the devnet tests, benches and tools call directly (beside what the
//! library crates bind for themselves): one declaration each, the union of what the tests use.

#![allow(missing_docs)] // sol!-generated items; each interface names its contract.

alloy::sol! {
    /// A Uniswap V3 pool.
    #[sol(rpc)]
    interface IUniswapV3Pool {
        function slot0() external view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked);
        function liquidity() external view returns (uint128);
        function fee() external view returns (uint24);
        function tickSpacing() external view returns (int24);
        function tickBitmap(int16 wordPosition) external view returns (uint256);
        function observe(uint32[] calldata secondsAgos) external view returns (int56[] memory tickCumulatives, uint160[] memory secondsPerLiquidityCumulativeX128s);
    }

    /// Uniswap V3's TickLens.
    #[sol(rpc)]
    interface ITickLens {
        struct PopulatedTick { int24 tick; int128 liquidityNet; uint128 liquidityGross; }
        function getPopulatedTicksInWord(address pool, int16 tickBitmapIndex) external view returns (PopulatedTick[] memory populatedTicks);
    }

    /// Uniswap V3's QuoterV2.
    #[sol(rpc)]
    interface IQuoterV2 {
        struct QuoteExactInputSingleParams { address tokenIn; address tokenOut; uint256 amountIn; uint24 fee; uint160 sqrtPriceLimitX96; }
        struct QuoteExactOutputSingleParams { address tokenIn; address tokenOut; uint256 amount; uint24 fee; uint160 sqrtPriceLimitX96; }
        function quoteExactInputSingle(QuoteExactInputSingleParams memory params) external returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate);
        function quoteExactOutputSingle(QuoteExactOutputSingleParams memory params) external returns (uint256 amountIn, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate);
    }

    /// Uniswap V3's SwapRouter.
    #[sol(rpc)]
    interface ISwapRouter {
        struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }
        function exactInputSingle(ExactInputSingleParams calldata params) external payable returns (uint256 amountOut);
    }

    /// Multicall3.
    #[sol(rpc)]
    interface IMulticall3 {
        struct Call3 { address target; bool allowFailure; bytes callData; }
        struct Result { bool success; bytes returnData; }
        function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData);
    }

    /// Uniswap V2's Router02.
    #[sol(rpc)]
    interface IRouter02 {
        function getAmountsOut(uint256 amountIn, address[] calldata path) external view returns (uint256[] memory amounts);
        function getAmountsIn(uint256 amountOut, address[] calldata path) external view returns (uint256[] memory amounts);
        function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] calldata path, address to, uint256 deadline) external returns (uint256[] memory amounts);
    }

    /// A Uniswap V2 pair.
    #[sol(rpc)]
    interface IUniswapV2Pair {
        function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
        function sync() external;
    }

    /// An Aerodrome (Solidly) pool.
    #[sol(rpc)]
    interface ISolidlyPool {
        function getAmountOut(uint256 amountIn, address tokenIn) external view returns (uint256);
        function metadata() external view returns (uint256 dec0, uint256 dec1, uint256 r0, uint256 r1, bool st, address t0, address t1);
        function getReserves() external view returns (uint256 reserve0, uint256 reserve1, uint256 blockTimestampLast);
    }

    /// A Uniswap V4 PoolKey (v4-core `types/PoolKey.sol`).
    struct DevnetV4PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }

    /// v4-core's PoolManager, as the tests open pools on it.
    #[sol(rpc)]
    interface IV4PoolManager {
        function initialize(DevnetV4PoolKey memory key, uint160 sqrtPriceX96) external returns (int24 tick);
        function setProtocolFeeController(address controller) external;
        function setProtocolFee(DevnetV4PoolKey memory key, uint24 newProtocolFee) external;
    }

    /// v4-core's DynamicFeesTestHook (src/test/DynamicFeesTestHook.sol): sets a dynamic
    /// pool's LP fee on initialisation (and, with that permission, before each swap).
    #[sol(rpc)]
    interface IDynamicFeesTestHook {
        function setManager(address _manager) external;
        function setFee(uint24 _fee) external;
    }

    /// v4-core's PoolModifyLiquidityTest router (pays the PoolManager from the sender).
    #[sol(rpc)]
    interface IV4PoolModifyLiquidityTest {
        struct ModifyLiquidityParams { int24 tickLower; int24 tickUpper; int256 liquidityDelta; bytes32 salt; }
        function modifyLiquidity(DevnetV4PoolKey memory key, ModifyLiquidityParams memory params, bytes memory hookData) external payable returns (int256 delta);
    }

    /// Aerodrome's pool factory.
    #[sol(rpc)]
    interface ISolidlyFactory {
        function getFee(address pool, bool _stable) external view returns (uint256);
    }

    /// Aerodrome's router.
    #[sol(rpc)]
    interface IAerodromeRouter {
        struct Route { address from; address to; bool stable; address factory; }
        function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, Route[] calldata routes, address to, uint256 deadline) external returns (uint256[] memory amounts);
    }

    /// An Aave V3 Pool: the reads and the writes the tests make.
    #[sol(rpc)]
    interface IAavePool {
        function getUserAccountData(address user) external view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor);
        function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external;
        function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf) external;
        function setUserEMode(uint8 categoryId) external;
    }

    /// Aave V3's PoolAddressesProvider.
    #[sol(rpc)]
    interface IPoolAddressesProvider {
        function getPool() external view returns (address);
        function getPriceOracle() external view returns (address);
    }

    /// A Chainlink-style feed, with the devnet mock's setter.
    #[sol(rpc)]
    interface IAggregatorV3 {
        function decimals() external view returns (uint8);
        function latestRoundData() external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
        function getRoundData(uint80 roundId) external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
        function updateAnswer(int256 answer) external;
    }

    /// Uniswap V3 NonfungiblePositionManager: each position's range and liquidity.
    interface INonfungiblePositionManager {
        function positions(uint256 tokenId) external view returns (uint96 nonce, address operator, address token0, address token1, uint24 fee, int24 tickLower, int24 tickUpper, uint128 liquidity, uint256 feeGrowthInside0LastX128, uint256 feeGrowthInside1LastX128, uint128 tokensOwed0, uint128 tokensOwed1);
    }

    /// An ERC-20 token, with the devnet test tokens' `mint` and WETH's `deposit`.
    #[sol(rpc)]
    interface IErc20 {
        function balanceOf(address) external view returns (uint256);
        function transfer(address to, uint256 value) external returns (bool);
        function approve(address spender, uint256 amount) external returns (bool);
        function mint(address account, uint256 value) external returns (bool);
        function deposit() external payable;
    }

    /// The devnet's PancakeSwap V3 callee (`testdata/devnet/builder/pancake-devnet.mjs`): it
    /// pays a pool's swap callback, so a swap run by `eth_call` answers the pool's own deltas.
    #[sol(rpc)]
    interface IDevnetPancakeCallee {
        function swap(address pool, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96) external returns (int256 amount0, int256 amount1);
    }

    /// PancakeSwap V3's factory (`@pancakeswap/v3-core` 1.0.2).
    #[sol(rpc)]
    interface IPancakeV3Factory {
        function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
        function feeAmountTickSpacing(uint24 fee) external view returns (int24);
        function poolDeployer() external view returns (address);
    }

    /// Algebra Integral's `TestAlgebraCallee` (`@cryptoalgebra/integral-core` 1.2.10, a test
    /// contract shipped compiled): swaps through a pool, paying its callback by `transferFrom`
    /// of the caller.
    #[sol(rpc)]
    interface ITestAlgebraCallee {
        function swapExact0For1(address pool, uint256 amount0In, address recipient, uint160 limitSqrtPrice) external;
        function swapExact1For0(address pool, uint256 amount1In, address recipient, uint160 limitSqrtPrice) external;
        function mint(address pool, address recipient, int24 bottomTick, int24 topTick, uint128 amount) external;
    }

    /// An Algebra Integral 1.2 pool's Swap event (`IAlgebraPoolEvents.sol`).
    interface IAlgebraPoolEvents {
        event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 price, uint128 liquidity, int24 tick);
    }

    /// The devnet's Slipstream CLFactory stand-in (`testdata/devnet/slipstream/
    /// SlipstreamInterface.sol`): lists a wrapper of a V3 pool at its tokens and tick spacing.
    #[sol(rpc)]
    interface IDevnetSlipstreamFactory {
        function list(address inner) external returns (address pool);
        function getPool(address tokenA, address tokenB, int24 tickSpacing) external view returns (address pool);
        function tickSpacings() external view returns (int24[] memory);
    }

    /// The Balancer V2 Vault (`@balancer-labs/v2-deployments` 3.2.0, task 20210418-vault):
    /// the calls the weighted-pool maths is checked against, and its Swap event.
    #[sol(rpc)]
    interface IBalancerVault {
        enum SwapKind { GIVEN_IN, GIVEN_OUT }
        struct SingleSwap { bytes32 poolId; SwapKind kind; address assetIn; address assetOut; uint256 amount; bytes userData; }
        struct BatchSwapStep { bytes32 poolId; uint256 assetInIndex; uint256 assetOutIndex; uint256 amount; bytes userData; }
        struct FundManagement { address sender; bool fromInternalBalance; address recipient; bool toInternalBalance; }
        function getPoolTokens(bytes32 poolId) external view returns (address[] memory tokens, uint256[] memory balances, uint256 lastChangeBlock);
        function queryBatchSwap(SwapKind kind, BatchSwapStep[] memory swaps, address[] memory assets, FundManagement memory funds) external returns (int256[] memory assetDeltas);
        function swap(SingleSwap memory singleSwap, FundManagement memory funds, uint256 limit, uint256 deadline) external payable returns (uint256 amountCalculated);
        event Swap(bytes32 indexed poolId, address indexed tokenIn, address indexed tokenOut, uint256 amountIn, uint256 amountOut);
    }

    /// A Balancer V2 weighted pool (20230206-weighted-pool-v3).
    #[sol(rpc)]
    interface IBalancerWeightedPool {
        function getPoolId() external view returns (bytes32);
        function getNormalizedWeights() external view returns (uint256[] memory);
        function getScalingFactors() external view returns (uint256[] memory);
        function getSwapFeePercentage() external view returns (uint256);
    }

    /// A Balancer V2 ComposableStablePool (20230206-composable-stable-pool-v3).
    #[sol(rpc)]
    interface IBalancerStablePool {
        function getAmplificationParameter() external view returns (uint256 value, bool isUpdating, uint256 precision);
        function getScalingFactors() external view returns (uint256[] memory);
        function getSwapFeePercentage() external view returns (uint256);
    }
}
