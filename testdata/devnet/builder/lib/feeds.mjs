// Stage: Chainlink-style price feeds. npm has Chainlink's MockV3Aggregator
// as source only, so it is compiled here with solc-js. Each feed answers
// latestRoundData/getRoundData like a real aggregator proxy (8 decimals).
// Note: its description() is a fixed string for every instance, so
// addresses.json says which pair each feed is.
import { compileJob } from "./compile.mjs";
import { deployArtifact } from "./deploy.mjs";
import { VENDORED, vendoredDir } from "./vendor.mjs";

export const FEED_DECIMALS = 8;

export function compileFeeds() {
  const unit = "@chainlink/contracts/src/v0.8/shared/mocks/MockV3Aggregator.sol";
  return compileJob({
    name: "chainlink",
    entries: [unit],
    contracts: { MockV3Aggregator: `${unit}:MockV3Aggregator` },
    remappings: { "@chainlink/contracts/": vendoredDir("@chainlink/contracts") },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "paris" },
    cacheKey: [`@chainlink/contracts@${VENDORED["@chainlink/contracts"].version}`],
  });
}

// Answers are decimal strings in USD; 8 decimals like Chainlink's USD feeds.
export function feedAnswer(usd) {
  const [i, f = ""] = String(usd).split(".");
  return BigInt(i) * 10n ** 8n + BigInt((f + "00000000").slice(0, 8));
}

export class Feeds {
  constructor(chain, artifact) {
    this.chain = chain;
    this.artifact = artifact;
    this.feeds = {}; // pair -> contract
  }

  // Round 1 is written by the constructor, at the deploying block's time.
  async deploy(pair, usd) {
    const c = await deployArtifact(this.chain.rpc, this.chain.deployer, this.artifact, {
      args: [FEED_DECIMALS, feedAnswer(usd)],
      label: `MockV3Aggregator ${pair}`,
    });
    this.feeds[pair] = c;
    return c;
  }

  async update(pair, usd) {
    await this.feeds[pair].send("updateAnswer", feedAnswer(usd));
  }

  // Every round as the chain reports it, oldest first.
  async rounds(pair) {
    const f = this.feeds[pair];
    const latest = await f.read("latestRoundData");
    const out = [];
    for (let id = 1n; id <= latest.roundId; id++) {
      const r = await f.read("getRoundData", id);
      out.push({
        round_id: Number(r.roundId),
        answer: r.answer.toString(),
        started_at: Number(r.startedAt),
        updated_at: Number(r.updatedAt),
      });
    }
    return out;
  }
}
