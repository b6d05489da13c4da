// Stage: Uniswap V2 from the published Waffle artifacts. The pair bytecode
// hash equals mainnet's init-code hash, so Router02's pairFor() works as-is.
import { getAddress } from "ethers";
import { loadWaffleArtifact } from "./artifacts.mjs";
import { deployArtifact } from "./deploy.mjs";
import { contractAt } from "./rpc.mjs";
import { DEADLINE, sortPair, usdAmount } from "./market.mjs";

export const V2_PAIR_ABI = loadWaffleArtifact("@uniswap/v2-core", "build/UniswapV2Pair.json").abi;

// [tokenA, tokenB, USD per side]. LINK/WETH is the deliberately thin pair.
export const V2_PAIRS = [
  ["WETH", "USDC", 3_000_000],
  ["WBTC", "WETH", 1_500_000],
  ["DAI", "USDC", 1_000_000],
  ["USDC", "USDT", 500_000],
  ["LINK", "WETH", 3_000],
];

export async function deployUniswapV2(chain) {
  const { rpc, deployer } = chain;
  const factory = await deployArtifact(rpc, deployer, loadWaffleArtifact("@uniswap/v2-core", "build/UniswapV2Factory.json"), {
    args: [deployer],
    label: "UniswapV2Factory",
  });
  const router = await deployArtifact(rpc, deployer, loadWaffleArtifact("@uniswap/v2-periphery", "build/UniswapV2Router02.json"), {
    args: [factory.address, chain.addr("WETH")],
    label: "UniswapV2Router02",
  });
  await chain.approveAll(deployer, router.address, [...new Set(V2_PAIRS.flatMap(([a, b]) => [a, b]))]);

  const pairs = [];
  for (const [a, b, usdPerSide] of V2_PAIRS) {
    const amountA = usdAmount(chain, a, usdPerSide);
    const amountB = usdAmount(chain, b, usdPerSide);
    await chain.fund(a, deployer, amountA);
    await chain.fund(b, deployer, amountB);
    // The router creates the pair on first liquidity.
    await router.send("addLiquidity", chain.addr(a), chain.addr(b), amountA, amountB, 0, 0, deployer, DEADLINE);
    const address = getAddress(await factory.read("getPair", chain.addr(a), chain.addr(b)));
    const [t0, t1] = sortPair(chain, a, b);
    pairs.push({
      name: `${t0}/${t1}`,
      address,
      token0: t0,
      token1: t1,
      thin: usdPerSide < 10_000,
      contract: contractAt(rpc, address, V2_PAIR_ABI, deployer),
    });
  }
  return { factory, router, pairs };
}
