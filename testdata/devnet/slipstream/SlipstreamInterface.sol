// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

// Slipstream's interfaces (Aerodrome / Velodrome CLFactory, CLPool, QuoterV2, as declared in
// github.com/aerodrome-finance/slipstream `contracts/core/interfaces` and
// `contracts/periphery/interfaces/IQuoterV2.sol`) over the devnet's real Uniswap V3 pools and
// QuoterV2. Slipstream's bytecode is not deployed here (it is in no registry package), so the
// service's Slipstream reads are proven against these interfaces, not that bytecode; the V3 swap
// maths underneath is the npm v3-core pool's, proven elsewhere. Devnet only: anyone may list a
// pool. Compiled by compile.mjs in this directory.

interface IV3PoolLike {
    function slot0()
        external
        view
        returns (uint160, int24, uint16, uint16, uint16, uint8, bool);
    function liquidity() external view returns (uint128);
    function fee() external view returns (uint24);
    function tickSpacing() external view returns (int24);
    function token0() external view returns (address);
    function token1() external view returns (address);
    function tickBitmap(int16 wordPosition) external view returns (uint256);
    function ticks(int24 tick)
        external
        view
        returns (uint128, int128, uint256, uint256, int56, uint160, uint32, bool);
}

interface IV3QuoterV2Like {
    struct QuoteExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        uint24 fee;
        uint160 sqrtPriceLimitX96;
    }

    function quoteExactInputSingle(QuoteExactInputSingleParams memory params)
        external
        returns (uint256, uint160, uint32, uint256);
}

/// A CLPool's view of one devnet Uniswap V3 pool: `slot0` without `feeProtocol`, `ticks` with
/// Slipstream's ten fields (no staked liquidity, no rewards), the rest passed through.
contract DevnetSlipstreamPool {
    IV3PoolLike public immutable inner;
    address public immutable factory;

    constructor(IV3PoolLike inner_, address factory_) {
        inner = inner_;
        factory = factory_;
    }

    function slot0()
        external
        view
        returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            bool unlocked
        )
    {
        (sqrtPriceX96, tick, observationIndex, observationCardinality, observationCardinalityNext,, unlocked) =
            inner.slot0();
    }

    function liquidity() external view returns (uint128) {
        return inner.liquidity();
    }

    function fee() external view returns (uint24) {
        return inner.fee();
    }

    function tickSpacing() external view returns (int24) {
        return inner.tickSpacing();
    }

    function token0() external view returns (address) {
        return inner.token0();
    }

    function token1() external view returns (address) {
        return inner.token1();
    }

    function tickBitmap(int16 wordPosition) external view returns (uint256) {
        return inner.tickBitmap(wordPosition);
    }

    /// Slipstream's ten fields (liquidityGross, liquidityNet, stakedLiquidityNet,
    /// feeGrowthOutside0X128, feeGrowthOutside1X128, rewardGrowthOutsideX128,
    /// tickCumulativeOutside, secondsPerLiquidityOutsideX128, secondsOutside, initialized) as ten
    /// ABI words (the same encoding as the tuple; one array keeps the stack small): V3's eight
    /// with no staked liquidity and no reward growth.
    function ticks(int24 tick) external view returns (uint256[10] memory out) {
        (bool ok, bytes memory data) = address(inner).staticcall(abi.encodeCall(IV3PoolLike.ticks, (tick)));
        require(ok && data.length == 256, "ticks");
        uint256[8] memory v3 = abi.decode(data, (uint256[8]));
        (out[0], out[1]) = (v3[0], v3[1]);
        (out[3], out[4]) = (v3[2], v3[3]);
        (out[6], out[7], out[8], out[9]) = (v3[4], v3[5], v3[6], v3[7]);
    }
}

/// A CLFactory: pools by (token, token, int24 tickSpacing), both orders.
contract DevnetSlipstreamFactory {
    mapping(address => mapping(address => mapping(int24 => address))) public getPool;
    int24[] private spacings;

    /// Wraps `inner` and lists the wrapper at its tokens and tick spacing.
    function list(IV3PoolLike inner) external returns (address pool) {
        (address token0, address token1, int24 spacing) = (inner.token0(), inner.token1(), inner.tickSpacing());
        require(getPool[token0][token1][spacing] == address(0), "listed");
        pool = address(new DevnetSlipstreamPool(inner, address(this)));
        getPool[token0][token1][spacing] = pool;
        getPool[token1][token0][spacing] = pool;
        bool known;
        for (uint256 i = 0; i < spacings.length; i++) {
            known = known || spacings[i] == spacing;
        }
        if (!known) spacings.push(spacing);
    }

    function tickSpacings() external view returns (int24[] memory) {
        return spacings;
    }
}

/// A Slipstream QuoterV2: finds the pool by tick spacing on its factory and quotes the wrapped
/// V3 pool through Uniswap's QuoterV2 at that pool's fee.
contract DevnetSlipstreamQuoterV2 {
    struct QuoteExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        int24 tickSpacing;
        uint160 sqrtPriceLimitX96;
    }

    DevnetSlipstreamFactory public immutable factory;
    IV3QuoterV2Like public immutable v3Quoter;

    constructor(DevnetSlipstreamFactory factory_, IV3QuoterV2Like v3Quoter_) {
        factory = factory_;
        v3Quoter = v3Quoter_;
    }

    function quoteExactInputSingle(QuoteExactInputSingleParams memory params)
        external
        returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate)
    {
        address pool = factory.getPool(params.tokenIn, params.tokenOut, params.tickSpacing);
        require(pool != address(0), "no pool");
        return v3Quoter.quoteExactInputSingle(
            IV3QuoterV2Like.QuoteExactInputSingleParams({
                tokenIn: params.tokenIn,
                tokenOut: params.tokenOut,
                amountIn: params.amountIn,
                fee: DevnetSlipstreamPool(pool).fee(),
                sqrtPriceLimitX96: params.sqrtPriceLimitX96
            })
        );
    }
}
