// Stage: an Aave V3 (v3.0.x, @aave/core-v3) market wired like a production
// one: addresses provider and registry, ACL, L2Pool and PoolConfigurator
// behind the provider's proxies, AaveOracle reading the devnet's Chainlink
// feeds, AaveProtocolDataProvider, rate strategies, per-reserve tokens, and a
// stablecoin eMode category. Borrower positions are opened later
// (lib/borrowers.mjs), after the feeds' final rounds.
import { getAddress } from "ethers";
import { loadHardhatArtifact } from "./artifacts.mjs";
import { deployArtifact } from "./deploy.mjs";
import { contractAt } from "./rpc.mjs";

const PKG = "@aave/core-v3";
const art = (p) => loadHardhatArtifact(PKG, `artifacts/contracts/${p}`);
const RAY = 10n ** 27n;
const pct = (x) => (BigInt(Math.round(x * 100)) * RAY) / 10_000n; // percent -> ray

export const POOL_ABI = art("protocol/pool/Pool.sol/Pool.json").abi;
export const DATA_PROVIDER_ABI = art("misc/AaveProtocolDataProvider.sol/AaveProtocolDataProvider.json").abi;
export const ORACLE_ABI = art("misc/AaveOracle.sol/AaveOracle.json").abi;

// Rate strategies (DefaultReserveInterestRateStrategy arguments in percent):
// optimal usage, base, slope1, slope2, stable slope1, stable slope2,
// base stable offset, stable excess offset, optimal stable/total debt.
const STRATEGIES = {
  volatile: [45, 0, 4, 300, 7, 300, 2, 8, 20],
  stable: [90, 0, 4, 60, 0.5, 60, 1, 8, 20],
};

// Reserve risk parameters (basis points), close to Aave's Base/Ethereum markets.
// The stablecoins allow stable-rate borrowing so a stable debt position exists.
export const RESERVES = {
  WETH: { ltv: 8000, lt: 8250, bonus: 10500, rf: 1500, strategy: "volatile", stable: false, feed: "ETH/USD" },
  USDC: { ltv: 7700, lt: 8000, bonus: 10450, rf: 1000, strategy: "stable", stable: true, feed: "USDC/USD" },
  WBTC: { ltv: 7300, lt: 7800, bonus: 10500, rf: 2000, strategy: "volatile", stable: false, feed: "BTC/USD" },
  DAI: { ltv: 7500, lt: 8000, bonus: 10500, rf: 1000, strategy: "stable", stable: true, feed: "DAI/USD" },
  LINK: { ltv: 5000, lt: 6500, bonus: 10750, rf: 2000, strategy: "volatile", stable: false, feed: "LINK/USD" },
};

export const EMODE_STABLECOINS = { id: 1, ltv: 9300, lt: 9500, bonus: 10100, label: "Stablecoins", assets: ["USDC", "DAI"] };

export async function deployAave(chain, feeds) {
  const { rpc, deployer } = chain;
  const d = (p, opts) => deployArtifact(rpc, deployer, art(p), opts);

  const provider = await d("protocol/configuration/PoolAddressesProvider.sol/PoolAddressesProvider.json", {
    args: ["Aave Devnet Market", deployer],
    label: "PoolAddressesProvider",
  });
  const registry = await d("protocol/configuration/PoolAddressesProviderRegistry.sol/PoolAddressesProviderRegistry.json", {
    args: [deployer],
    label: "PoolAddressesProviderRegistry",
  });
  await registry.send("registerAddressesProvider", provider.address, 1);

  // Libraries, FlashLoanLogic last because it links BorrowLogic.
  const libs = {};
  for (const name of ["SupplyLogic", "BorrowLogic", "LiquidationLogic", "EModeLogic", "BridgeLogic", "PoolLogic", "ConfiguratorLogic"]) {
    libs[name] = (await d(`protocol/libraries/logic/${name}.sol/${name}.json`, { label: name })).address;
  }
  libs.FlashLoanLogic = (await d("protocol/libraries/logic/FlashLoanLogic.sol/FlashLoanLogic.json", {
    libraries: { BorrowLogic: libs.BorrowLogic },
    label: "FlashLoanLogic",
  })).address;

  const dataProvider = await d("misc/AaveProtocolDataProvider.sol/AaveProtocolDataProvider.json", { args: [provider.address], label: "AaveProtocolDataProvider" });
  await provider.send("setPoolDataProvider", dataProvider.address);

  // ACLManager's constructor reads the ACL admin from the provider.
  await provider.send("setACLAdmin", deployer);
  const acl = await d("protocol/configuration/ACLManager.sol/ACLManager.json", { args: [provider.address], label: "ACLManager" });
  await provider.send("setACLManager", acl.address);
  for (const role of ["addPoolAdmin", "addEmergencyAdmin", "addRiskAdmin", "addAssetListingAdmin"]) await acl.send(role, deployer);

  // L2Pool, as on Base. The implementation is initialised too so nobody else
  // can; the provider then deploys the proxy and initialises that.
  const poolImpl = await d("protocol/pool/L2Pool.sol/L2Pool.json", { args: [provider.address], libraries: libs, label: "L2Pool" });
  await poolImpl.send("initialize", provider.address);
  await provider.send("setPoolImpl", poolImpl.address);
  const poolAddress = getAddress(await provider.read("getPool"));
  const pool = contractAt(rpc, poolAddress, POOL_ABI, deployer);

  const configuratorImpl = await d("protocol/pool/PoolConfigurator.sol/PoolConfigurator.json", { libraries: libs, label: "PoolConfigurator" });
  await configuratorImpl.send("initialize", provider.address);
  await provider.send("setPoolConfiguratorImpl", configuratorImpl.address);
  const configuratorAddress = getAddress(await provider.read("getPoolConfigurator"));
  const configurator = contractAt(rpc, configuratorAddress, configuratorImpl.iface, deployer);

  const symbols = Object.keys(RESERVES);
  const oracle = await d("misc/AaveOracle.sol/AaveOracle.json", {
    args: [
      provider.address,
      symbols.map((s) => chain.addr(s)),
      symbols.map((s) => feeds.feeds[RESERVES[s].feed].address),
      "0x0000000000000000000000000000000000000000",
      "0x0000000000000000000000000000000000000000", // base currency USD...
      10n ** 8n, // ...with 8 decimals, like Aave's USD markets
    ],
    label: "AaveOracle",
  });
  await provider.send("setPriceOracle", oracle.address);

  const aTokenImpl = await d("protocol/tokenization/AToken.sol/AToken.json", { args: [poolAddress], label: "AToken" });
  const stableDebtImpl = await d("protocol/tokenization/StableDebtToken.sol/StableDebtToken.json", { args: [poolAddress], label: "StableDebtToken" });
  const variableDebtImpl = await d("protocol/tokenization/VariableDebtToken.sol/VariableDebtToken.json", { args: [poolAddress], label: "VariableDebtToken" });
  const strategies = {};
  for (const [name, p] of Object.entries(STRATEGIES)) {
    strategies[name] = await d("protocol/pool/DefaultReserveInterestRateStrategy.sol/DefaultReserveInterestRateStrategy.json", {
      args: [provider.address, ...p.map(pct)],
      label: `rate strategy ${name}`,
    });
  }

  await configurator.send(
    "initReserves",
    symbols.map((s) => ({
      aTokenImpl: aTokenImpl.address,
      stableDebtTokenImpl: stableDebtImpl.address,
      variableDebtTokenImpl: variableDebtImpl.address,
      underlyingAssetDecimals: chain.decimals[s],
      interestRateStrategyAddress: strategies[RESERVES[s].strategy].address,
      underlyingAsset: chain.addr(s),
      treasury: deployer,
      incentivesController: "0x0000000000000000000000000000000000000000",
      aTokenName: `Aave Devnet ${s}`,
      aTokenSymbol: `aDev${s}`,
      variableDebtTokenName: `Aave Devnet Variable Debt ${s}`,
      variableDebtTokenSymbol: `variableDebtDev${s}`,
      stableDebtTokenName: `Aave Devnet Stable Debt ${s}`,
      stableDebtTokenSymbol: `stableDebtDev${s}`,
      params: "0x",
    })),
  );
  for (const s of symbols) {
    const r = RESERVES[s];
    await configurator.send("configureReserveAsCollateral", chain.addr(s), r.ltv, r.lt, r.bonus);
    await configurator.send("setReserveBorrowing", chain.addr(s), true);
    if (r.stable) await configurator.send("setReserveStableRateBorrowing", chain.addr(s), true);
    await configurator.send("setReserveFactor", chain.addr(s), r.rf);
  }
  const e = EMODE_STABLECOINS;
  await configurator.send("setEModeCategory", e.id, e.ltv, e.lt, e.bonus, "0x0000000000000000000000000000000000000000", e.label);
  for (const s of e.assets) await configurator.send("setAssetEModeCategory", chain.addr(s), e.id);

  const dp = contractAt(rpc, dataProvider.address, DATA_PROVIDER_ABI, deployer);
  const reserveTokens = {};
  for (const s of symbols) {
    const t = await dp.read("getReserveTokensAddresses", chain.addr(s));
    reserveTokens[s] = {
      a_token: getAddress(t.aTokenAddress),
      stable_debt_token: getAddress(t.stableDebtTokenAddress),
      variable_debt_token: getAddress(t.variableDebtTokenAddress),
      interest_rate_strategy: strategies[RESERVES[s].strategy].address,
    };
  }

  return {
    provider,
    registry,
    acl,
    pool,
    poolImpl,
    configurator,
    configuratorImpl,
    oracle: contractAt(rpc, oracle.address, ORACLE_ABI, deployer),
    dataProvider: dp,
    libs,
    strategies,
    tokenImpls: { a_token: aTokenImpl.address, stable_debt_token: stableDebtImpl.address, variable_debt_token: variableDebtImpl.address },
    reserveTokens,
  };
}
