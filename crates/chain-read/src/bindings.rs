//! `sol!` call types of every contract the crate reads. Only call encoders and decoders are
//! generated (no `#[sol(rpc)]` instances): every call goes through a Multicall3 batch.
//!
//! ABIs follow the contracts' own sources: mds1/multicall (Multicall3), Uniswap v3-core and
//! v3-periphery (factory, pool, QuoterV2, TickLens), v2-core (factory and pair) and Aerodrome's
//! contracts (Solidly pool factory and pool); Slipstream's core and periphery interfaces
//! (CLFactory, CLPool, QuoterV2); Algebra Integral 1.2's (factory, pool, QuoterV2);
//! Uniswap v4-core and v4-periphery (the PoolKey, StateView, V4Quoter);
//! the OP-stack GasPriceOracle as ethereum-optimism/optimism declares it (see
//! `registry/builtin.rs`); SwapRouter02's `exactInputSingle` only to size a representative
//! transaction (it is never called).

#![allow(missing_docs)]

alloy::sol! {
    #![sol(all_derives)]
    /// Multicall3: batches with per-call failure, plus the block facts used to pin a request.
    interface IMulticall3 {
        struct Call3 { address target; bool allowFailure; bytes callData; }
        struct Result { bool success; bytes returnData; }
        function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData);
        function getBlockNumber() external view returns (uint256 blockNumber);
        function getCurrentBlockTimestamp() external view returns (uint256 timestamp);
        function getChainId() external view returns (uint256 chainid);
    }

    /// ERC-20 metadata.
    interface IErc20Metadata {
        function decimals() external view returns (uint8);
        function symbol() external view returns (string);
        function balanceOf(address owner) external view returns (uint256);
    }

    /// `factory()`: the same selector on Uniswap V2 pairs, V3 pools and Solidly pools; it
    /// names the DEX a pool claims to belong to (checked against that factory's own lookup).
    interface IFactoryOwned {
        function factory() external view returns (address);
    }

    /// Uniswap V3 TickLens: every initialized tick of one bitmap word with its liquidity.
    interface ITickLens {
        struct PopulatedTick { int24 tick; int128 liquidityNet; uint128 liquidityGross; }
        function getPopulatedTicksInWord(address pool, int16 tickBitmapIndex) external view returns (PopulatedTick[] memory populatedTicks);
    }

    /// Uniswap V3 factory (and its forks).
    interface IUniswapV3Factory {
        function feeAmountTickSpacing(uint24 fee) external view returns (int24);
        function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
    }

    /// Uniswap V3 pool state. `feeProtocol` is declared `uint32` so PancakeSwap V3's wider field
    /// decodes too (a `uint8` value fits in the same ABI word).
    interface IUniswapV3Pool {
        function slot0() external view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint32 feeProtocol, bool unlocked);
        function liquidity() external view returns (uint128);
        function fee() external view returns (uint24);
        function tickSpacing() external view returns (int24);
        function token0() external view returns (address);
        function token1() external view returns (address);
        function tickBitmap(int16 wordPosition) external view returns (uint256);
        function ticks(int24 tick) external view returns (uint128 liquidityGross, int128 liquidityNet, uint256 feeGrowthOutside0X128, uint256 feeGrowthOutside1X128, int56 tickCumulativeOutside, uint160 secondsPerLiquidityOutsideX128, uint32 secondsOutside, bool initialized);
        function observe(uint32[] calldata secondsAgos) external view returns (int56[] memory tickCumulatives, uint160[] memory secondsPerLiquidityCumulativeX128s);
    }

    /// Chainlink AggregatorV3Interface, as the feed proxies expose it (Chainlink's data feeds API reference).
    interface IAggregatorV3 {
        function decimals() external view returns (uint8);
        function description() external view returns (string memory);
        function latestRoundData() external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
        function getRoundData(uint80 roundId) external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
    }

    /// Uniswap QuoterV2: not `view` (it reverts internally and catches its own revert).
    interface IQuoterV2 {
        struct QuoteExactInputSingleParams { address tokenIn; address tokenOut; uint256 amountIn; uint24 fee; uint160 sqrtPriceLimitX96; }
        function quoteExactInputSingle(QuoteExactInputSingleParams memory params) external returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate);
    }

    /// Slipstream CLFactory (Aerodrome and Velodrome; github.com/aerodrome-finance/slipstream
    /// `contracts/core/interfaces/ICLFactory.sol`): pools keyed by tick spacing. Only the
    /// `int24` overload of `getPool` is declared (the `uint24` one has another selector).
    interface ISlipstreamFactory {
        function getPool(address tokenA, address tokenB, int24 tickSpacing) external view returns (address pool);
        function tickSpacings() external view returns (int24[] memory);
        function tickSpacingToFee(int24 tickSpacing) external view returns (uint24);
    }

    /// Slipstream CLPool (`contracts/core/interfaces/pool/ICLPoolState.sol`): `slot0` has six
    /// fields (no `feeProtocol`) and `ticks` ten (staked liquidity and reward growth added);
    /// `fee()`, `liquidity()`, `tickSpacing()` and `tickBitmap` are V3's selectors.
    interface ISlipstreamPool {
        function slot0() external view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, bool unlocked);
        function ticks(int24 tick) external view returns (uint128 liquidityGross, int128 liquidityNet, int128 stakedLiquidityNet, uint256 feeGrowthOutside0X128, uint256 feeGrowthOutside1X128, uint256 rewardGrowthOutsideX128, int56 tickCumulativeOutside, uint160 secondsPerLiquidityOutsideX128, uint32 secondsOutside, bool initialized);
    }

    /// Slipstream QuoterV2 (`contracts/periphery/interfaces/IQuoterV2.sol`): V3's, with the
    /// pool named by `int24 tickSpacing` instead of `uint24 fee`; not `view`.
    interface ISlipstreamQuoterV2 {
        struct QuoteExactInputSingleParams { address tokenIn; address tokenOut; uint256 amountIn; int24 tickSpacing; uint160 sqrtPriceLimitX96; }
        function quoteExactInputSingle(QuoteExactInputSingleParams memory params) external returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate);
    }

    /// Algebra Integral 1.2 factory (`@cryptoalgebra/integral-core`, `IAlgebraFactory.sol`):
    /// one base pool per pair, found by `poolByPair` (either token order).
    interface IAlgebraFactory {
        function poolByPair(address tokenA, address tokenB) external view returns (address pool);
    }

    /// Algebra Integral 1.2 pool (`IAlgebraPoolState.sol`): `globalState` holds the price, the
    /// tick and the fee of the pool (set by the factory's default, the administrator or a
    /// dynamic-fee plugin); `liquidity()` and `tickSpacing()` are V3's selectors.
    interface IAlgebraPool {
        function globalState() external view returns (uint160 price, int24 tick, uint16 lastFee, uint8 pluginConfig, uint16 communityFee, bool unlocked);
        /// A tick: six fields, `liquidityDelta` second (the tick list's neighbours third and
        /// fourth).
        function ticks(int24 tick) external view returns (uint256 liquidityTotal, int128 liquidityDelta, int24 prevTick, int24 nextTick, uint256 outerFeeGrowth0Token, uint256 outerFeeGrowth1Token);
    }

    /// Algebra Integral 1.2 QuoterV2 (`@cryptoalgebra/integral-periphery`, `IQuoterV2.sol`): the
    /// pool is named by its tokens and `deployer` (zero for the factory's base pools); six
    /// answers, the fee the swap paid last; not `view`.
    interface IAlgebraQuoterV2 {
        struct QuoteExactInputSingleParams { address tokenIn; address tokenOut; address deployer; uint256 amountIn; uint160 limitSqrtPrice; }
        function quoteExactInputSingle(QuoteExactInputSingleParams memory params) external returns (uint256 amountOut, uint256 amountIn, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate, uint16 fee);
    }

    /// Algebra V1 pool (`@cryptoalgebra/core` 2.0.0, `IAlgebraPoolState.sol`; QuickSwap V3 on
    /// polygon): `globalState` has seven fields (the fee, then the timepoint index and two
    /// community fees); initialized ticks are bits of `tickTable` words, 256 ticks compressed by
    /// the spacing per word as in V3's `tickBitmap`; `ticks(int24)` is V3's selector and
    /// eight-field shape (`liquidityDelta` second).
    interface IAlgebraV1Pool {
        function globalState() external view returns (uint160 price, int24 tick, uint16 fee, uint16 timepointIndex, uint8 communityFeeToken0, uint8 communityFeeToken1, bool unlocked);
        function tickTable(int16 wordPosition) external view returns (uint256);
    }

    /// Algebra V1 Quoter (`@cryptoalgebra/periphery` 1.0.0, `IQuoter.sol`; the quoter QuickSwap
    /// publishes): the pool is the pair's one pool, so no fee or deployer argument; it answers
    /// the amount and the fee the swap paid (the adaptive fee of the block); not `view`.
    interface IAlgebraV1Quoter {
        function quoteExactInputSingle(address tokenIn, address tokenOut, uint256 amountIn, uint160 limitSqrtPrice) external returns (uint256 amountOut, uint16 fee);
    }

    /// Uniswap V2 factory (and Sushi's).
    interface IUniswapV2Factory {
        function getPair(address tokenA, address tokenB) external view returns (address pair);
    }

    /// Uniswap V2 pair.
    interface IUniswapV2Pair {
        function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
    }

    /// Solidly pool factory (Aerodrome, Velodrome V2). The `uint24` overload of `getPool` is not
    /// declared: the `bool` one is the same lookup.
    interface ISolidlyFactory {
        function getPool(address tokenA, address tokenB, bool stable) external view returns (address pool);
        function getFee(address pool, bool stable) external view returns (uint256);
    }

    /// OP-stack GasPriceOracle predeploy: the L1 data fee of an unsigned RLP-encoded
    /// transaction.
    interface IGasPriceOracle {
        function getL1Fee(bytes memory data) external view returns (uint256);
    }

    /// Uniswap SwapRouter02 (IV3SwapRouter): the calldata of a typical swap.
    interface ISwapRouter02 {
        struct ExactInputSingleParams { address tokenIn; address tokenOut; uint24 fee; address recipient; uint256 amountIn; uint256 amountOutMinimum; uint160 sqrtPriceLimitX96; }
        function exactInputSingle(ExactInputSingleParams calldata params) external payable returns (uint256 amountOut);
    }

    /// Uniswap V4 PoolKey (v4-core `types/PoolKey.sol`): `currency0` is the lower address,
    /// the zero address for the native token; `fee` may carry the dynamic-fee flag.
    struct V4PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }

    /// Uniswap V4 StateView (v4-periphery `lens/StateView.sol`): a pool's state by PoolId.
    interface IStateView {
        function getSlot0(bytes32 poolId) external view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee);
        function getLiquidity(bytes32 poolId) external view returns (uint128 liquidity);
        function getTickBitmap(bytes32 poolId, int16 tick) external view returns (uint256 tickBitmap);
        function getTickLiquidity(bytes32 poolId, int24 tick) external view returns (uint128 liquidityGross, int128 liquidityNet);
    }

    /// Uniswap V4Quoter (v4-periphery `lens/V4Quoter.sol`): not `view` (it runs the swap in
    /// the PoolManager, the pool's hooks included, and reverts with the result).
    interface IV4Quoter {
        struct QuoteExactSingleParams { V4PoolKey poolKey; bool zeroForOne; uint128 exactAmount; bytes hookData; }
        function quoteExactInputSingle(QuoteExactSingleParams memory params) external returns (uint256 amountOut, uint256 gasEstimate);
    }

    /// Solidly pool.
    interface ISolidlyPool {
        function getAmountOut(uint256 amountIn, address tokenIn) external view returns (uint256);
        function getReserves() external view returns (uint256 reserve0, uint256 reserve1, uint256 blockTimestampLast);
        function stable() external view returns (bool);
    }
}
