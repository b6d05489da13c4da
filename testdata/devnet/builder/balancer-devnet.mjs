#!/usr/bin/env node
// Balancer V2 on a running devnet, for the tests that prove dex-math's weighted-pool maths on
// Balancer's own bytecode (issue 37). Not part of the committed state: a test runs it on its own
// anvil, so the recorded blocks stay where they are.
//
// Everything deployed is shipped compiled in `@balancer-labs/v2-deployments` 3.2.0 (GPL-3.0-only,
// installed by npm, never committed): the Authorizer and the Vault of task 20210418-vault (the
// Vault deployed on ethereum at 0xBA12222222228d8Ba445958a75a0704d566BF2C8), the
// ProtocolFeePercentagesProvider of 20220725, and the WeightedPoolFactory of
// 20230206-weighted-pool-v3, whose pools carry the swap maths of every later weighted pool
// (FixedPoint's powUp with its 1/2/4 shortcuts, LogExpMath otherwise).
//
// Four pools with weights and fees chosen to exercise each branch of the maths: a 50/50 pool
// (exponent one), an 80/20 pool (exponent four one way, a quarter the other), a three-token
// pool of 6- and 18-decimal stablecoins (free exponents) and a 60/40 pool with an 8-decimal
// token. Each is funded by the Vault's INIT join from the deployer, at round prices.
//
//   node balancer-devnet.mjs --rpc URL --addresses addresses.json
// Prints {"vault", "queries", "authorizer", "fee_provider", "factory", "pools": [{name, address, pool_id,
// tokens, weights, swap_fee, balances}]} on stdout (amounts as decimal strings).
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { AbiCoder, MaxUint256, getAddress, parseUnits } from "ethers";
import { deployArtifact } from "./lib/deploy.mjs";
import { MarginRpc, contractAt } from "./lib/rpc.mjs";
import { ERC20_ABI } from "./lib/tokens.mjs";

const require = createRequire(import.meta.url);
const TASKS = "@balancer-labs/v2-deployments/dist/tasks";
const art = (task, name) => require(`${TASKS}/${task}/artifact/${name}.json`);

const POOL_ABI = [
  "function getPoolId() view returns (bytes32)",
  "function getNormalizedWeights() view returns (uint256[])",
  "function getSwapFeePercentage() view returns (uint256)",
];
const POOL_CREATED = "PoolCreated(address)";

// name, tokens with weights (percent) and the INIT amounts (whole tokens), swap fee (1e18 = 100 %).
const POOLS = [
  { name: "WETH/USDC 50/50", tokens: { WETH: [50, "1000"], USDC: [50, "3000000"] }, fee: "0.003" },
  { name: "WETH/DAI 80/20", tokens: { WETH: [80, "800"], DAI: [20, "600000"] }, fee: "0.005" },
  {
    name: "USDC/DAI/USDT 40/35/25",
    tokens: { USDC: [40, "4000000"], DAI: [35, "3500000"], USDT: [25, "2500000"] },
    fee: "0.0001",
  },
  { name: "WBTC/WETH 60/40", tokens: { WBTC: [60, "60"], WETH: [40, "1333.33"] }, fee: "0.0025" },
];

// ComposableStablePools: name, the INIT amounts (whole tokens, unequal so the curve is off its
// centre), amplification A, swap fee.
const STABLE_POOLS = [
  { name: "USDC/DAI/USDT stable A=200", tokens: { USDC: "2000000", DAI: "2600000", USDT: "1500000" }, amp: 200, fee: "0.0001" },
  { name: "DAI/USDT stable A=1500", tokens: { DAI: "900000", USDT: "1300000" }, amp: 1500, fee: "0.0004" },
];
const STABLE_POOL_ABI = [
  "function getPoolId() view returns (bytes32)",
  "function getAmplificationParameter() view returns (uint256 value, bool isUpdating, uint256 precision)",
  "function getSwapFeePercentage() view returns (uint256)",
];
const VAULT_ABI = [
  "function getPoolTokens(bytes32 poolId) view returns (address[] tokens, uint256[] balances, uint256 lastChangeBlock)",
];

async function main() {
  const { values } = parseArgs({ options: { rpc: { type: "string" }, addresses: { type: "string" } } });
  if (!values.rpc || !values.addresses) throw new Error("usage: --rpc URL --addresses addresses.json");
  const rpc = new MarginRpc(values.rpc);
  const addresses = JSON.parse((await import("node:fs")).readFileSync(values.addresses, "utf8"));
  const from = getAddress(addresses.deployer.address);
  const token = (symbol) => getAddress(addresses.tokens[symbol].address);
  const decimals = (symbol) => Number(addresses.tokens[symbol].decimals);

  const authorizer = await deployArtifact(rpc, from, art("20210418-authorizer", "Authorizer"), {
    args: [from],
    label: "Authorizer",
  });
  // No pause window: nothing here pauses, and the windows only gate pausing.
  const vault = await deployArtifact(rpc, from, art("20210418-vault", "Vault"), {
    args: [authorizer.address, token("WETH"), 0, 0],
    label: "Vault",
  });
  const feeProvider = await deployArtifact(
    rpc,
    from,
    art("20220725-protocol-fee-percentages-provider", "ProtocolFeePercentagesProvider"),
    { args: [vault.address, parseUnits("0.5", 18), parseUnits("0.5", 18)], label: "ProtocolFeePercentagesProvider" },
  );
  const factory = await deployArtifact(rpc, from, art("20230206-weighted-pool-v3", "WeightedPoolFactory"), {
    args: [vault.address, feeProvider.address, "devnet factory", "devnet pool"],
    label: "WeightedPoolFactory",
  });
  const stableFactory = await deployArtifact(
    rpc,
    from,
    art("20230206-composable-stable-pool-v3", "ComposableStablePoolFactory"),
    { args: [vault.address, feeProvider.address, "devnet factory", "devnet pool"], label: "ComposableStablePoolFactory" },
  );

  // BalancerQueries (task 20220721): `querySwap` runs the Vault's queryBatchSwap of one swap and
  // answers the amount, which is how the dex-route adapter quotes (on ethereum at
  // 0xE39B5e3B6D74016b2F6A9673D7d7493B6DF549d5).
  const queries = await deployArtifact(rpc, from, art("20220721-balancer-queries", "BalancerQueries"), {
    args: [vault.address],
    label: "BalancerQueries",
  });
  await rpc.request("anvil_setBalance", [from, `0x${(10n ** 24n).toString(16)}`]);
  for (const symbol of Object.keys(addresses.tokens)) {
    const erc20 = contractAt(rpc, token(symbol), ERC20_ABI, from);
    if (symbol === "WETH") {
      await erc20.sendWith({ value: parseUnits("100000", 18) }, "deposit");
    } else {
      await erc20.send("mint", from, parseUnits("1000000000", decimals(symbol)));
    }
    await erc20.send("approve", vault.address, MaxUint256);
  }

  const coder = AbiCoder.defaultAbiCoder();
  const pools = [];
  for (const spec of POOLS) {
    // The Vault registers a pool's tokens sorted by address.
    const symbols = Object.keys(spec.tokens).sort((a, b) =>
      BigInt(token(a)) < BigInt(token(b)) ? -1 : 1,
    );
    const tokens = symbols.map(token);
    const weights = symbols.map((s) => parseUnits(String(spec.tokens[s][0]), 16));
    const amounts = symbols.map((s) => parseUnits(spec.tokens[s][1], decimals(s)));
    const fee = parseUnits(spec.fee, 18);
    const receipt = await factory.sendWith(
      { gas: 12_000_000 },
      "create",
      spec.name,
      "BPT",
      tokens,
      weights,
      tokens.map(() => "0x0000000000000000000000000000000000000000"),
      fee,
      from,
    );
    const created = receipt.logs.find(
      (log) => getAddress(log.address) === factory.address && log.topics[0] === factory.iface.getEvent(POOL_CREATED).topicHash,
    );
    if (!created) throw new Error(`no PoolCreated for ${spec.name}`);
    const address = getAddress(`0x${created.topics[1].slice(26)}`);
    const pool = contractAt(rpc, address, POOL_ABI, from);
    const poolId = await pool.read("getPoolId");
    // JoinKind.INIT = 0 with every token's amount.
    const userData = coder.encode(["uint256", "uint256[]"], [0, amounts]);
    await vault.sendWith({ gas: 3_000_000 }, "joinPool", poolId, from, from, [tokens, amounts, userData, false]);
    pools.push({
      name: spec.name,
      address,
      pool_id: poolId,
      tokens,
      weights: (await pool.read("getNormalizedWeights")).map(String),
      swap_fee: String(await pool.read("getSwapFeePercentage")),
      balances: amounts.map(String),
    });
  }
  const stablePools = [];
  const vaultView = contractAt(rpc, vault.address, VAULT_ABI, from);
  for (const spec of STABLE_POOLS) {
    const symbols = Object.keys(spec.tokens).sort((a, b) => (BigInt(token(a)) < BigInt(token(b)) ? -1 : 1));
    const tokens = symbols.map(token);
    const zero = "0x0000000000000000000000000000000000000000";
    const receipt = await stableFactory.sendWith(
      { gas: 15_000_000 },
      "create",
      spec.name,
      "BPT",
      tokens,
      spec.amp,
      tokens.map(() => zero),
      tokens.map(() => 0),
      tokens.map(() => false),
      parseUnits(spec.fee, 18),
      from,
    );
    const created = receipt.logs.find(
      (log) =>
        getAddress(log.address) === stableFactory.address &&
        log.topics[0] === stableFactory.iface.getEvent(POOL_CREATED).topicHash,
    );
    if (!created) throw new Error(`no PoolCreated for ${spec.name}`);
    const address = getAddress(`0x${created.topics[1].slice(26)}`);
    const pool = contractAt(rpc, address, STABLE_POOL_ABI, from);
    const poolId = await pool.read("getPoolId");
    // The Vault lists the pool's own BPT among its tokens; INIT names an amount for every
    // registered token, the BPT's being the pool's to fill in (it mints it to the sender).
    const registered = (await vaultView.read("getPoolTokens", poolId))[0].map(getAddress);
    const amounts = registered.map((t) => {
      const symbol = symbols.find((s) => token(s) === t);
      return symbol ? parseUnits(spec.tokens[symbol], decimals(symbol)) : 0n;
    });
    const maxIn = registered.map((t, i) => (t === address ? MaxUint256 : amounts[i]));
    const userData = coder.encode(["uint256", "uint256[]"], [0, amounts]);
    await vault.sendWith({ gas: 3_000_000 }, "joinPool", poolId, from, from, [registered, maxIn, userData, false]);
    const amp = await pool.read("getAmplificationParameter");
    stablePools.push({
      name: spec.name,
      address,
      pool_id: poolId,
      tokens: registered,
      amp: String(amp[0]),
      swap_fee: String(await pool.read("getSwapFeePercentage")),
    });
  }
  process.stdout.write(
    `${JSON.stringify({
      vault: vault.address,
      queries: queries.address,
      authorizer: authorizer.address,
      fee_provider: feeProvider.address,
      factory: factory.address,
      stable_factory: stableFactory.address,
      pools,
      stable_pools: stablePools,
    })}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
