#!/usr/bin/env node
// PancakeSwap V3 on a running devnet, for the tests that prove the concentrated adapter on
// PancakeSwap's own bytecode (issue 36). Not part of the committed state: a test runs it on its
// own anvil, so the recorded blocks stay where they are.
//
// `@pancakeswap/v3-core` 1.0.2 ships the factory and pool bytecode but no PoolDeployer (the
// contract the factory asks to create a pool, whose `parameters()` the pool's constructor
// reads): a small one is compiled here with solc-js, with a callee that pays the pool's mint
// and swap callbacks (`pancakeV3MintCallback`, `pancakeV3SwapCallback`). The pool's creation
// code is kept as the runtime code of a holder contract and created with CREATE2, salted as
// PancakeSwap's deployer salts it (token0, token1, fee).
//
//   node pancake-devnet.mjs --rpc URL
// Prints {"factory", "deployer", "callee", "pools": [{name, address, token0, token1, fee,
// tick_spacing, positions: [{tick_lower, tick_upper, liquidity}]}]} on stdout.
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { Interface, getAddress, parseUnits } from "ethers";
import { Rpc, contractAt } from "./lib/rpc.mjs";
import { loadHardhatArtifact } from "./lib/artifacts.mjs";
import { ERC20_ABI } from "./lib/tokens.mjs";

const require = createRequire(import.meta.url);

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

interface IERC20Like {
    function transfer(address to, uint256 amount) external returns (bool);
}

interface IPancakePoolLike {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external returns (uint256, uint256);
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data)
        external returns (int256, int256);
}

/// Creates PancakeSwap V3 pools for the factory that names it, from the pool creation code
/// held as another contract's runtime code.
contract DevnetPancakePoolDeployer {
    struct Parameters {
        address factory;
        address token0;
        address token1;
        uint24 fee;
        int24 tickSpacing;
    }

    Parameters public parameters;
    address public factoryAddress;
    address public immutable poolCode;

    constructor(address poolCode_) {
        poolCode = poolCode_;
    }

    function setFactoryAddress(address factory) external {
        require(factoryAddress == address(0), "set");
        factoryAddress = factory;
    }

    function deploy(address factory, address token0, address token1, uint24 fee, int24 tickSpacing)
        external
        returns (address pool)
    {
        require(msg.sender == factoryAddress, "factory only");
        parameters = Parameters(factory, token0, token1, fee, tickSpacing);
        bytes memory init = poolCode.code;
        bytes32 salt = keccak256(abi.encode(token0, token1, fee));
        assembly {
            pool := create2(0, add(init, 32), mload(init), salt)
        }
        require(pool != address(0), "create2");
        delete parameters;
    }
}

/// Holds tokens and pays a pool's callbacks: mints positions, and swaps (run by eth_call, a
/// swap answers the pool's own deltas without changing state).
contract DevnetPancakeCallee {
    function mint(address pool, int24 tickLower, int24 tickUpper, uint128 amount) external {
        IPancakePoolLike(pool).mint(address(this), tickLower, tickUpper, amount, "");
    }

    function swap(address pool, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96)
        external
        returns (int256 amount0, int256 amount1)
    {
        return IPancakePoolLike(pool).swap(msg.sender, zeroForOne, amountSpecified, sqrtPriceLimitX96, "");
    }

    function pancakeV3MintCallback(uint256 owed0, uint256 owed1, bytes calldata) external {
        pay(owed0, owed1);
    }

    function pancakeV3SwapCallback(int256 delta0, int256 delta1, bytes calldata) external {
        pay(delta0 > 0 ? uint256(delta0) : 0, delta1 > 0 ? uint256(delta1) : 0);
    }

    function pay(uint256 amount0, uint256 amount1) private {
        if (amount0 > 0) IERC20Like(IPancakePoolLike(msg.sender).token0()).transfer(msg.sender, amount0);
        if (amount1 > 0) IERC20Like(IPancakePoolLike(msg.sender).token1()).transfer(msg.sender, amount1);
    }
}
`;

function compile() {
  const solc = require("solc");
  const input = {
    language: "Solidity",
    sources: { "DevnetPancake.sol": { content: SOURCE } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const out = output.contracts["DevnetPancake.sol"];
  const art = (name) => ({ abi: out[name].abi, bytecode: `0x${out[name].evm.bytecode.object}` });
  return { deployer: art("DevnetPancakePoolDeployer"), callee: art("DevnetPancakeCallee") };
}

// Creation code that returns `code` as the new contract's runtime code.
function holderCreationCode(code) {
  const body = code.slice(2);
  const length = body.length / 2;
  if (length > 0xffff) throw new Error("pool code too long for a PUSH2 length");
  const len = length.toString(16).padStart(4, "0");
  // PUSH2 len, DUP1, PUSH1 0x0c (this header's length), PUSH1 0, CODECOPY, PUSH1 0, RETURN;
  // then the code.
  return `0x61${len}80600c6000396000f3${body}`;
}

async function deploy(rpc, from, art, args, label) {
  const iface = new Interface(art.abi);
  const data = art.bytecode + iface.encodeDeploy(args).slice(2);
  return contractAt(rpc, getAddress(await rpc.deploy(from, data, label)), iface, from);
}

const POOL_ABI = [
  "function initialize(uint160 sqrtPriceX96)",
  "function token0() view returns (address)",
  "function token1() view returns (address)",
];

async function main() {
  const { values } = parseArgs({ options: { rpc: { type: "string" }, addresses: { type: "string" } } });
  if (!values.rpc || !values.addresses) throw new Error("usage: --rpc URL --addresses addresses.json");
  const rpc = new Rpc(values.rpc);
  const addresses = JSON.parse(require("node:fs").readFileSync(values.addresses, "utf8"));
  const from = getAddress(addresses.deployer.address);
  const token = (symbol) => getAddress(addresses.tokens[symbol].address);

  const compiled = compile();
  const poolArt = loadHardhatArtifact("@pancakeswap/v3-core", "artifacts/contracts/PancakeV3Pool.sol/PancakeV3Pool.json");
  const factoryArt = loadHardhatArtifact(
    "@pancakeswap/v3-core",
    "artifacts/contracts/PancakeV3Factory.sol/PancakeV3Factory.json",
  );
  const holder = getAddress(await rpc.deploy(from, holderCreationCode(poolArt.bytecode), "pool code holder"));
  const deployer = await deploy(rpc, from, compiled.deployer, [holder], "DevnetPancakePoolDeployer");
  const factory = await deploy(rpc, from, factoryArt, [deployer.address], "PancakeV3Factory");
  await deployer.send("setFactoryAddress", factory.address);
  const callee = await deploy(rpc, from, compiled.callee, [], "DevnetPancakeCallee");

  // DAI/USDT (the devnet's open-mint test tokens, both at 1 USD) at PancakeSwap's 2500 and
  // 100 tiers, and WBTC/USDT at 2500: fee tiers and tick spacings PancakeSwap has and Uniswap
  // has not (2500/50).
  const specs = [
    { a: "DAI", b: "USDT", fee: 2500 },
    { a: "DAI", b: "USDT", fee: 100 },
    { a: "WBTC", b: "USDT", fee: 2500 },
  ];
  for (const symbol of ["DAI", "USDT", "WBTC"]) {
    const erc20 = contractAt(rpc, token(symbol), ERC20_ABI, from);
    const decimals = Number(addresses.tokens[symbol].decimals);
    await erc20.send("mint", callee.address, parseUnits("100000000", decimals));
  }
  const pools = [];
  for (const spec of specs) {
    const [t0, t1] = [token(spec.a), token(spec.b)].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1));
    await factory.sendWith({ gas: 8_000_000 }, "createPool", t0, t1, spec.fee);
    const poolAddress = getAddress(
      await factory.iface.decodeFunctionResult(
        "getPool",
        await rpc.call(factory.address, factory.iface.encodeFunctionData("getPool", [t0, t1, spec.fee])),
      )[0],
    );
    const pool = contractAt(rpc, poolAddress, POOL_ABI, from);
    const spacing = Number(
      factory.iface.decodeFunctionResult(
        "feeAmountTickSpacing",
        await rpc.call(factory.address, factory.iface.encodeFunctionData("feeAmountTickSpacing", [spec.fee])),
      )[0],
    );
    // The price of token0 in token1, raw units: 1 USD each side (WBTC at 90,000 USD).
    const usd = { DAI: 1, USDT: 1, WBTC: 90000 };
    const sym0 = t0 === token(spec.a) ? spec.a : spec.b;
    const sym1 = sym0 === spec.a ? spec.b : spec.a;
    const d0 = Number(addresses.tokens[sym0].decimals);
    const d1 = Number(addresses.tokens[sym1].decimals);
    const price = (usd[sym0] / usd[sym1]) * 10 ** (d1 - d0);
    const tick = Math.round(Math.log(price) / Math.log(1.0001));
    const sqrt = BigInt(Math.round(Math.sqrt(1.0001 ** tick) * 2 ** 48)) * 2n ** 48n;
    await pool.send("initialize", sqrt);
    const align = (t) => Math.floor(t / spacing) * spacing;
    // Liquidity for about 1M USD of token1 within ±1.25 % of the price (narrow), a fifth of
    // it over ±40 spacings, a hundredth over the whole range.
    const sqrtPrice = Math.sqrt(1.0001 ** tick);
    const token1PerMillionUsd = (1e6 / usd[sym1]) * 10 ** d1;
    const narrow = BigInt(Math.round(token1PerMillionUsd / (sqrtPrice * 0.0125)));
    const positions = [
      { tick_lower: align(-887272) + spacing, tick_upper: align(887272), liquidity: narrow / 100n },
      { tick_lower: align(tick - 40 * spacing), tick_upper: align(tick + 40 * spacing), liquidity: narrow / 5n },
      { tick_lower: align(tick - 4 * spacing), tick_upper: align(tick + 6 * spacing), liquidity: narrow },
    ];
    for (const p of positions) {
      // anvil's estimate misses the 63/64 kept back from the callback: a fixed limit.
      await callee.sendWith({ gas: 3_000_000 }, "mint", poolAddress, p.tick_lower, p.tick_upper, p.liquidity);
    }
    pools.push({
      name: `${sym0}/${sym1}/${spec.fee}`,
      address: poolAddress,
      token0: t0,
      token1: t1,
      fee: spec.fee,
      tick_spacing: spacing,
      positions: positions.map((p) => ({ ...p, liquidity: p.liquidity.toString() })),
    });
  }
  process.stdout.write(
    `${JSON.stringify({ factory: factory.address, deployer: deployer.address, callee: callee.address, pools })}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
