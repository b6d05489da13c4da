// Stage: Uniswap V3 from the published hardhat artifacts (pool init-code hash
// equals mainnet's), plus SwapRouter02 and MixedRouteQuoterV1 from the
// vendored @uniswap/swap-router-contracts. Pools get layered positions over
// many tick ranges, so a large trade crosses several initialized ticks, and
// a raised observation cardinality, so a 30-minute TWAP can be read.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { encodeBytes32String, getAddress } from "ethers";
import { loadHardhatArtifact } from "./artifacts.mjs";
import { deployArtifact } from "./deploy.mjs";
import { contractAt } from "./rpc.mjs";
import { vendoredDir } from "./vendor.mjs";
import { DEADLINE, PRICES_USD, sortPair } from "./market.mjs";

const CORE = "artifacts/contracts";
const PERI = "artifacts/contracts";
export const V3_POOL_ABI = loadHardhatArtifact("@uniswap/v3-core", `${CORE}/UniswapV3Pool.sol/UniswapV3Pool.json`).abi;
const peri = (p) => loadHardhatArtifact("@uniswap/v3-periphery", `${PERI}/${p}`);

export const TICK_SPACING = { 100: 1, 500: 10, 3000: 60, 10000: 200 };
export const OBSERVATION_CARDINALITY = 100;
const MAX_TICK = 887272;

// [tokenA, tokenB, fee, total USD of liquidity, shape]
export const V3_POOLS = [
  ["WETH", "USDC", 100, 300_000, "volatile"],
  ["WETH", "USDC", 500, 6_000_000, "volatile"],
  ["WETH", "USDC", 3000, 2_000_000, "volatile"],
  ["WETH", "USDC", 10000, 200_000, "volatile"],
  ["WBTC", "WETH", 500, 3_000_000, "volatile"],
  ["WBTC", "WETH", 3000, 600_000, "volatile"],
  ["WBTC", "USDC", 3000, 1_000_000, "volatile"],
  ["USDC", "USDT", 100, 2_000_000, "stable"],
  ["USDC", "USDT", 500, 200_000, "stable"],
  ["DAI", "USDC", 100, 2_000_000, "stable"],
  ["DAI", "USDC", 500, 200_000, "stable"],
  ["LINK", "WETH", 3000, 600_000, "volatile"],
  ["LINK", "WETH", 10000, 60_000, "volatile"],
];

// Position layers: [lower offset, upper offset] in ticks from the current
// tick (snapped outward to the spacing; null = full range), and the share of
// the pool's USD. Narrow layers near the price carry most liquidity, as on
// a real pool; two one-sided layers sit wholly above and below the price.
const LAYERS = {
  volatile: [
    [null, null, 0.1],
    [-50, 50, 0.2],
    [-150, 150, 0.15],
    [-400, 400, 0.15],
    [-1000, 1000, 0.12],
    [-2500, 2500, 0.1],
    [100, 1200, 0.06],
    [-1200, -100, 0.06],
    [-5000, 3000, 0.06],
  ],
  stable: [
    [-2, 2, 0.3],
    [-5, 5, 0.2],
    [-10, 10, 0.15],
    [-25, 25, 0.1],
    [-100, 100, 0.1],
    [-1000, 1000, 0.1],
    [3, 20, 0.025],
    [-20, -3, 0.025],
  ],
};

// Raw price of token0 in token1 units (what sqrtPriceX96 encodes, squared).
function rawPrice(chain, t0, t1) {
  return (PRICES_USD[t0] / PRICES_USD[t1]) * 10 ** (chain.decimals[t1] - chain.decimals[t0]);
}

function sqrtPriceX96Of(price) {
  // 2^96 split in two so the float keeps its 53 bits of precision.
  return BigInt(Math.round(Math.sqrt(price) * 2 ** 48)) * 2n ** 48n;
}

const sqrtAtTick = (t) => Math.pow(1.0001, t / 2);

// Token amounts (raw, as floats) for liquidity L over [tl, tu] at sqrt price s.
function amountsFor(L, s, tl, tu) {
  const sa = sqrtAtTick(tl);
  const sb = sqrtAtTick(tu);
  if (s <= sa) return [(L * (sb - sa)) / (sa * sb), 0];
  if (s >= sb) return [0, L * (sb - sa)];
  return [(L * (sb - s)) / (s * sb), L * (s - sa)];
}

// Mint amounts for each layer: L is chosen so the position is worth its USD
// share; the desired amounts get a hair of slack and the NPM takes what the
// resulting liquidity needs.
export function planPositions(chain, t0, t1, fee, usd, shape) {
  const spacing = TICK_SPACING[fee];
  const price = rawPrice(chain, t0, t1);
  const s = Math.sqrt(price);
  const tick = Math.floor(Math.log(price) / Math.log(1.0001));
  const usdPerRaw1 = PRICES_USD[t1] / 10 ** chain.decimals[t1];
  return LAYERS[shape].map(([lo, hi, share]) => {
    let tl;
    let tu;
    if (lo === null) {
      tl = Math.ceil(-MAX_TICK / spacing) * spacing;
      tu = Math.floor(MAX_TICK / spacing) * spacing;
    } else {
      tl = Math.floor((tick + lo) / spacing) * spacing;
      tu = Math.ceil((tick + hi) / spacing) * spacing;
      if (tu <= tl) tu = tl + spacing;
    }
    const [a0, a1] = amountsFor(1, s, tl, tu);
    const valuePerL = (a0 * price + a1) * usdPerRaw1;
    const L = (usd * share) / valuePerL;
    const [x0, x1] = amountsFor(L, s, tl, tu);
    const slack = (x) => (x === 0 ? 0n : BigInt(Math.ceil(x * 1.000001)) + 2n);
    return { tickLower: tl, tickUpper: tu, amount0: slack(x0), amount1: slack(x1) };
  });
}

export async function deployUniswapV3Core(chain) {
  const { rpc, deployer } = chain;
  const weth = chain.addr("WETH");
  const factory = await deployArtifact(rpc, deployer, loadHardhatArtifact("@uniswap/v3-core", `${CORE}/UniswapV3Factory.sol/UniswapV3Factory.json`), { label: "UniswapV3Factory" });
  // The 0.01% tier is not in the v1.0.1 constructor; governance enabled it
  // later on mainnet and Base, as done here.
  await factory.send("enableFeeAmount", 100, 1);
  const nftDescriptorLib = await deployArtifact(rpc, deployer, peri("libraries/NFTDescriptor.sol/NFTDescriptor.json"), { label: "NFTDescriptor" });
  const descriptor = await deployArtifact(rpc, deployer, peri("NonfungibleTokenPositionDescriptor.sol/NonfungibleTokenPositionDescriptor.json"), {
    args: [weth, encodeBytes32String("ETH")],
    libraries: { NFTDescriptor: nftDescriptorLib.address },
    label: "NonfungibleTokenPositionDescriptor",
  });
  const npm = await deployArtifact(rpc, deployer, peri("NonfungiblePositionManager.sol/NonfungiblePositionManager.json"), {
    args: [factory.address, weth, descriptor.address],
    label: "NonfungiblePositionManager",
  });
  const swapRouter = await deployArtifact(rpc, deployer, peri("SwapRouter.sol/SwapRouter.json"), { args: [factory.address, weth], label: "SwapRouter" });
  const quoterV2 = await deployArtifact(rpc, deployer, peri("lens/QuoterV2.sol/QuoterV2.json"), { args: [factory.address, weth], label: "QuoterV2" });
  const tickLens = await deployArtifact(rpc, deployer, peri("lens/TickLens.sol/TickLens.json"), { label: "TickLens" });
  return { factory, npm, swapRouter, quoterV2, tickLens, nftDescriptorLib, descriptor };
}

function vendoredArtifact(rel) {
  return JSON.parse(readFileSync(join(vendoredDir("@uniswap/swap-router-contracts"), "artifacts/contracts", rel), "utf8"));
}

// Needs both factories, so it runs after the V2 stage.
export async function deploySwapRouter02(chain, { v2Factory, v3 }) {
  const { rpc, deployer } = chain;
  const weth = chain.addr("WETH");
  const swapRouter02 = await deployArtifact(rpc, deployer, vendoredArtifact("SwapRouter02.sol/SwapRouter02.json"), {
    args: [v2Factory.address, v3.factory.address, v3.npm.address, weth],
    label: "SwapRouter02",
  });
  const mixedRouteQuoterV1 = await deployArtifact(rpc, deployer, vendoredArtifact("lens/MixedRouteQuoterV1.sol/MixedRouteQuoterV1.json"), {
    args: [v3.factory.address, v2Factory.address, weth],
    label: "MixedRouteQuoterV1",
  });
  return { swapRouter02, mixedRouteQuoterV1 };
}

export async function createV3Pools(chain, v3) {
  const { rpc, deployer } = chain;
  await chain.approveAll(deployer, v3.npm.address, [...new Set(V3_POOLS.flatMap(([a, b]) => [a, b]))]);
  const pools = [];
  for (const [a, b, fee, usd, shape] of V3_POOLS) {
    const [t0, t1] = sortPair(chain, a, b);
    const sqrtPriceX96 = sqrtPriceX96Of(rawPrice(chain, t0, t1));
    await v3.npm.send("createAndInitializePoolIfNecessary", chain.addr(t0), chain.addr(t1), fee, sqrtPriceX96);
    const address = getAddress(await v3.factory.read("getPool", chain.addr(t0), chain.addr(t1), fee));
    const pool = contractAt(rpc, address, V3_POOL_ABI, deployer);
    await pool.send("increaseObservationCardinalityNext", OBSERVATION_CARDINALITY);

    const plan = planPositions(chain, t0, t1, fee, usd, shape);
    const need0 = plan.reduce((s, p) => s + p.amount0, 0n);
    const need1 = plan.reduce((s, p) => s + p.amount1, 0n);
    await chain.fund(t0, deployer, need0);
    await chain.fund(t1, deployer, need1);
    const tokenIds = [];
    for (const p of plan) {
      const receipt = await v3.npm.send("mint", {
        token0: chain.addr(t0),
        token1: chain.addr(t1),
        fee,
        tickLower: p.tickLower,
        tickUpper: p.tickUpper,
        amount0Desired: p.amount0,
        amount1Desired: p.amount1,
        amount0Min: 0,
        amount1Min: 0,
        recipient: deployer,
        deadline: DEADLINE,
      });
      tokenIds.push(transferredTokenId(receipt, v3.npm.address));
    }
    pools.push({
      name: `${t0}/${t1}/${fee}`,
      address,
      token0: t0,
      token1: t1,
      fee,
      tickSpacing: TICK_SPACING[fee],
      shape,
      positions: plan.map((p, i) => ({ token_id: tokenIds[i], tick_lower: p.tickLower, tick_upper: p.tickUpper })),
      contract: pool,
    });
  }
  return pools;
}

// The NPM mints an ERC-721: Transfer(0x0, recipient, tokenId) from the NPM.
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
function transferredTokenId(receipt, npmAddress) {
  const log = receipt.logs.find(
    (l) => getAddress(l.address) === npmAddress && l.topics[0] === TRANSFER_TOPIC && l.topics.length === 4,
  );
  if (!log) throw new Error("NPM mint: no Transfer event");
  return Number(BigInt(log.topics[3]));
}
