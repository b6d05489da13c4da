#!/usr/bin/env node
// Loads DIR/state.json.gz into a fresh anvil, the way the tests will, and
// re-checks what DIR/addresses.json claims: quotes, reserves, TWAP reads,
// feed rounds, Aave account data, the sandwich and swap transactions, and the
// payment rail.
//   node verify-state.mjs --dir DIR
// Prints {"ok":true,...,"timings":{...}} or fails with exit 1.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { getAddress, id as topicOf } from "ethers";
import { startAnvil } from "./lib/anvil.mjs";
import { Rpc, contractAt } from "./lib/rpc.mjs";
import { Chain } from "./lib/chain.mjs";
import { ERC20_ABI } from "./lib/tokens.mjs";
import { MULTICALL3 } from "./lib/multicall3.mjs";
import { BASE_USDC_DOMAIN_SEPARATOR } from "./lib/usdc.mjs";
import { loadHardhatArtifact, loadWaffleArtifact } from "./lib/artifacts.mjs";
import { V2_PAIR_ABI } from "./lib/uniswap-v2.mjs";
import { V3_POOL_ABI } from "./lib/uniswap-v3.mjs";
import { POOL_ABI as AAVE_POOL_ABI } from "./lib/aave.mjs";
import { formatAccountData } from "./lib/borrowers.mjs";
import { readChecks } from "./lib/checks.mjs";
import { V4_QUOTER_ABI, STATE_VIEW_ABI, poolId, v4Checks } from "./lib/uniswap-v4.mjs";

// The few functions read here, so verifying needs neither vendor/ nor solc.
const AERO_POOL_ABI = [
  "function getReserves() view returns (uint256 _reserve0, uint256 _reserve1, uint256 _blockTimestampLast)",
  "function getAmountOut(uint256 amountIn, address tokenIn) view returns (uint256)",
];
const FEED_ABI = [
  "function getRoundData(uint80) view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
];

function usage(msg) {
  process.stderr.write(`${msg}\nusage: node verify-state.mjs --dir DIR\n`);
  process.exit(2);
}

const problems = [];
function expectEqual(what, actual, expected) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) problems.push(`${what}: got ${a.slice(0, 300)}, recorded ${e.slice(0, 300)}`);
}

async function main() {
  let values;
  try {
    ({ values } = parseArgs({ options: { dir: { type: "string" } }, strict: true }));
  } catch (err) {
    usage(err.message);
  }
  if (!values.dir) usage("missing --dir");
  const dir = resolve(values.dir);
  const info = JSON.parse(readFileSync(join(dir, "addresses.json"), "utf8"));
  const timings = {};

  let t = Date.now();
  const work = mkdtempSync(join(tmpdir(), "devnet-verify-"));
  const stateFile = join(work, "state.json");
  // anvil --load-state does not read gzip.
  writeFileSync(stateFile, gunzipSync(readFileSync(join(dir, "state.json.gz"))));
  timings.gunzip_ms = Date.now() - t;

  t = Date.now();
  const startedAt = t;
  const anvil = await startAnvil(["--load-state", stateFile, "--timestamp", String(info.chain.load_timestamp)]);
  timings.load_to_first_answer_ms = Date.now() - t;
  try {
    const rpc = new Rpc(anvil.url);
    t = Date.now();

    // Chain tip and clock.
    const head = await rpc.request("eth_getBlockByNumber", ["latest", false]);
    expectEqual("chain id", await rpc.chainId(), info.chain.chain_id);
    expectEqual("latest block", Number(BigInt(head.number)), info.chain.final_block.number);
    expectEqual("latest block time", Number(BigInt(head.timestamp)), info.chain.final_block.timestamp);

    // Rebuild the bindings the build used, from addresses.json only.
    const chain = new Chain(rpc, info.deployer.address);
    for (const [s, tk] of Object.entries(info.tokens)) chain.addToken(s, contractAt(rpc, tk.address, ERC20_ABI), tk.decimals);
    const c = info.contracts;
    const v3 = { quoterV2: contractAt(rpc, c.uniswap_v3.quoter_v2, loadHardhatArtifact("@uniswap/v3-periphery", "artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json").abi) };
    const v2 = { router: contractAt(rpc, c.uniswap_v2.router02, loadWaffleArtifact("@uniswap/v2-periphery", "build/UniswapV2Router02.json").abi) };
    const pools = {
      v2: Object.fromEntries(info.pools.uniswap_v2.map((p) => [p.name, { ...p, kind: "v2", contract: contractAt(rpc, p.address, V2_PAIR_ABI) }])),
      v3: Object.fromEntries(info.pools.uniswap_v3.map((p) => [p.name, { ...p, kind: "v3", contract: contractAt(rpc, p.address, V3_POOL_ABI) }])),
      aero: Object.fromEntries(info.pools.aerodrome.map((p) => [p.name, { ...p, kind: "aero", contract: contractAt(rpc, p.address, AERO_POOL_ABI) }])),
    };

    // Quotes, reserves, TWAP reads: same calls as the build's checks.
    const again = await readChecks(chain, { v2, v3, aero: null, pools });
    for (const kind of ["v3_quotes", "v2_pairs", "aerodrome_pools"]) {
      for (const [name, rec] of Object.entries(info.checks[kind])) expectEqual(`${kind} ${name}`, again[kind][name], rec);
    }
    for (const [name, rec] of Object.entries(info.checks.twap)) {
      const { spot_tick: _spot, ...recorded } = rec;
      expectEqual(`twap ${name}`, again.twap[name], recorded);
    }

    // Feeds: every recorded round, and latestRoundData.
    for (const [pair, f] of Object.entries(info.feeds.by_pair)) {
      const feed = contractAt(rpc, f.address, FEED_ABI);
      for (const r of f.rounds) {
        const got = await feed.read("getRoundData", r.round_id);
        expectEqual(`feed ${pair} round ${r.round_id}`, [Number(got.roundId), got.answer.toString(), Number(got.startedAt), Number(got.updatedAt)], [r.round_id, r.answer, r.started_at, r.updated_at]);
      }
      const latest = await feed.read("latestRoundData");
      expectEqual(`feed ${pair} latest round`, Number(latest.roundId), f.rounds.at(-1).round_id);
    }

    // Aave: account data of every wallet.
    const aavePool = contractAt(rpc, c.aave_v3.pool, AAVE_POOL_ABI);
    const hf = {};
    for (const [k, w] of Object.entries(info.aave.borrowers)) {
      const got = formatAccountData(await aavePool.read("getUserAccountData", w.address));
      expectEqual(`aave ${k} account data`, got, w.account_data);
      hf[k] = got.health_factor_decimal;
    }
    const provider = contractAt(rpc, c.aave_v3.pool_addresses_provider, ["function getPool() view returns (address)", "function getPriceOracle() view returns (address)", "function getPoolDataProvider() view returns (address)"]);
    expectEqual("aave provider.getPool", getAddress(await provider.read("getPool")), c.aave_v3.pool);
    expectEqual("aave provider.getPriceOracle", getAddress(await provider.read("getPriceOracle")), c.aave_v3.aave_oracle);

    // History: the sandwiches (3 txs in order in one block, all successful,
    // Swap logs findable by eth_getLogs) and every ordinary swap receipt.
    const swapTopics = {
      v3: topicOf("Swap(address,address,int256,int256,uint160,uint128,int24)"),
      v2: topicOf("Swap(address,uint256,uint256,uint256,uint256,address)"),
    };
    for (const [name, s] of Object.entries(info.activity.sandwiches)) {
      if (!s.txs) continue;
      for (const [i, h] of s.txs.entries()) {
        const r = await rpc.request("eth_getTransactionReceipt", [h]);
        if (!r) { problems.push(`sandwich ${name}: no receipt for ${h}`); continue; }
        expectEqual(`sandwich ${name} tx ${i}`, [Number(BigInt(r.blockNumber)), Number(BigInt(r.transactionIndex)), r.status], [s.block, i, "0x1"]);
      }
      const logs = await rpc.request("eth_getLogs", [{ fromBlock: `0x${s.block.toString(16)}`, toBlock: `0x${s.block.toString(16)}`, address: s.pool, topics: [swapTopics[s.venue]] }]);
      expectEqual(`sandwich ${name} Swap logs`, logs.map((l) => l.transactionHash), s.txs);
    }
    let receipts = 0;
    for (const r of [...info.activity.ordinary_swaps, ...info.activity.multi_swap_block.swaps]) {
      const got = await rpc.request("eth_getTransactionReceipt", [r.tx]);
      if (!got || got.status !== "0x1" || Number(BigInt(got.blockNumber)) !== r.block) problems.push(`swap ${r.tx}: receipt missing or different`);
      else receipts++;
    }
    const allSwapLogs = await rpc.request("eth_getLogs", [{ fromBlock: `0x${info.chain.history_kept_from_block.toString(16)}`, toBlock: "latest", topics: [[swapTopics.v3, swapTopics.v2]] }]);

    // Uniswap V4: each pool's PoolId from its key, and StateView's and V4Quoter's
    // answers, as the build read them.
    const v4 = {
      stateView: contractAt(rpc, info.contracts.uniswap_v4.state_view, STATE_VIEW_ABI),
      quoter: contractAt(rpc, info.contracts.uniswap_v4.v4_quoter, V4_QUOTER_ABI),
    };
    for (const p of info.pools.uniswap_v4) {
      const key = { currency0: p.currency0_address, currency1: p.currency1_address, fee: p.fee, tickSpacing: p.tick_spacing, hooks: p.hooks };
      expectEqual(`v4 ${p.name} pool id`, poolId(key), p.pool_id);
      const amounts = p.at_final_block.quotes.map((q) => [q.zero_for_one, BigInt(q.exact_amount)]);
      const again = await v4Checks(chain, v4, { key, id: p.pool_id }, amounts);
      expectEqual(`v4 ${p.name}`, again, p.at_final_block);
    }

    // Payment rail.
    const usdc = contractAt(rpc, info.payment_rail.usdc, ["function balanceOf(address) view returns (uint256)", "function DOMAIN_SEPARATOR() view returns (bytes32)"]);
    expectEqual("USDC domain separator", await usdc.read("DOMAIN_SEPARATOR"), BASE_USDC_DOMAIN_SEPARATOR);
    expectEqual("payer USDC", (await usdc.read("balanceOf", info.payment_rail.payer_address)).toString(), "1000000000");
    if ((await rpc.getCode(MULTICALL3)).length < 100) problems.push("Multicall3 has no code");
    expectEqual("facilitator ETH", BigInt(await rpc.request("eth_getBalance", [info.payment_rail.facilitator_address, "latest"])).toString(), (100n * 10n ** 18n).toString());

    // A new block after the load continues from the pinned clock: anvil
    // counts wall-clock seconds from --timestamp, so allow the time spent.
    await rpc.request("evm_mine", []);
    const next = Number(BigInt((await rpc.request("eth_getBlockByNumber", ["latest", false])).timestamp));
    const elapsed = Math.ceil((Date.now() - startedAt) / 1000);
    if (next < info.chain.load_timestamp || next > info.chain.load_timestamp + elapsed + 1) {
      problems.push(`first new block time ${next}, expected ${info.chain.load_timestamp} + up to ${elapsed} s`);
    }
    timings.first_new_block_timestamp = next;
    timings.checks_ms = Date.now() - t;

    if (problems.length) throw new Error(`${problems.length} mismatches:\n  ${problems.join("\n  ")}`);
    process.stdout.write(`${JSON.stringify({
      ok: true,
      block: info.chain.final_block,
      receipts_checked: receipts,
      swap_logs_in_history: allSwapLogs.length,
      health_factors: hf,
      timings,
    }, null, 2)}\n`);
  } finally {
    await anvil.stop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`verify-state: ${err.stack ?? err}\n`);
  process.exit(1);
});
