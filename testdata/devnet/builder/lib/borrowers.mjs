// Stage: Aave positions, one labelled wallet per situation the lending
// endpoint must handle. Runs after the feeds' final rounds, so the health
// factors recorded at the end of the build are those the oracle gives.
import { MaxUint256, formatUnits } from "ethers";
import { labelledKey } from "./keys.mjs";
import { contractAt } from "./rpc.mjs";
import { RESERVES, EMODE_STABLECOINS } from "./aave.mjs";

const VARIABLE = 2;
const STABLE = 1;
const WAD = 10n ** 18n;

// supply: symbol -> decimal amount; borrow: [symbol, amount | "near-liquidation", "variable"|"stable"].
export const BORROWERS = [
  {
    key: "supplier",
    intent: "liquidity supplier: large deposits in every reserve, no debt (health factor = max uint256)",
    supply: { USDC: "2000000", DAI: "2000000", WETH: "500", WBTC: "20", LINK: "100000" },
    borrow: [],
  },
  {
    key: "healthy",
    intent: "healthy: WETH collateral, small variable USDC debt (HF about 5)",
    supply: { WETH: "20" },
    borrow: [["USDC", "10000", "variable"]],
  },
  {
    key: "near_liquidation",
    intent: "close to liquidation: WETH collateral, USDC debt sized for HF about 1.04 (a ~4% ETH drop liquidates)",
    supply: { WETH: "5" },
    borrow: [["USDC", "near-liquidation", "variable"]],
  },
  {
    key: "multi_asset",
    intent: "several collaterals (WETH, WBTC, LINK) and several debts (USDC, DAI, and WETH, an asset it also supplies)",
    supply: { WETH: "6", WBTC: "0.3", LINK: "2000" },
    borrow: [["USDC", "10000", "variable"], ["DAI", "6000", "variable"], ["WETH", "1", "variable"]],
  },
  {
    key: "stable_and_variable",
    intent: "stable-rate USDC debt and variable-rate DAI debt against WBTC",
    supply: { WBTC: "1" },
    borrow: [["USDC", "25000", "stable"], ["DAI", "10000", "variable"]],
  },
  {
    key: "emode",
    intent: "stablecoin eMode (category 1: LTV 93%, LT 95%): DAI collateral, USDC debt; outside eMode (DAI LT 80%) the same position would have HF < 1",
    emode: EMODE_STABLECOINS.id,
    supply: { DAI: "100000" },
    borrow: [["USDC", "80000", "variable"]],
  },
  {
    key: "collateral_cannot_liquidate",
    intent: "LINK collateral whose fall alone cannot liquidate: even at LINK = 0 the WETH collateral keeps HF > 1",
    supply: { WETH: "10", LINK: "500" },
    borrow: [["USDC", "4000", "variable"]],
  },
  {
    key: "no_position",
    intent: "wallet with tokens but no Aave position (all zeros, HF = max uint256)",
    supply: {},
    borrow: [],
    hold: { USDC: "5000", WETH: "2" },
  },
];

export function borrowerLabel(key) {
  return `x402-devnet-aave-${key.replaceAll("_", "-")}`;
}

// Debt that puts `user` at HF = target (basis points), at the oracle's
// current prices: debt = collateral * LT / target.
async function nearLiquidationDebt(chain, aave, user, symbol, targetHfBps) {
  const acct = await aave.pool.read("getUserAccountData", user);
  const debtBase = (acct.totalCollateralBase * acct.currentLiquidationThreshold) / BigInt(targetHfBps);
  const price = await aave.oracle.read("getAssetPrice", chain.addr(symbol));
  return (debtBase * 10n ** BigInt(chain.decimals[symbol])) / price;
}

export async function openPositions(chain, aave) {
  const out = {};
  for (const b of BORROWERS) {
    const signer = await chain.wallet(borrowerLabel(b.key));
    const asUser = contractAt(chain.rpc, aave.pool.address, aave.pool.iface, signer);
    if (b.emode) await asUser.send("setUserEMode", b.emode);
    const supplied = {};
    for (const [s, amount] of Object.entries(b.supply)) {
      const raw = chain.units(s, amount);
      await chain.fund(s, signer, raw);
      await chain.token(s, signer).send("approve", aave.pool.address, MaxUint256);
      await asUser.send("supply", chain.addr(s), raw, signer.address, 0);
      supplied[s] = raw.toString();
    }
    const borrowed = [];
    for (const [s, amount, mode] of b.borrow) {
      const raw = amount === "near-liquidation"
        ? await nearLiquidationDebt(chain, aave, signer.address, s, 10400)
        : chain.units(s, amount);
      await asUser.send("borrow", chain.addr(s), raw, mode === "stable" ? STABLE : VARIABLE, 0, signer.address);
      borrowed.push({ asset: s, amount: raw.toString(), rate_mode: mode });
    }
    for (const [s, amount] of Object.entries(b.hold ?? {})) await chain.fund(s, signer, chain.units(s, amount));
    const key = labelledKey(borrowerLabel(b.key));
    out[b.key] = {
      label: key.label,
      address: signer.address,
      private_key: key.privateKey,
      intent: b.intent,
      emode_category: b.emode ?? 0,
      supplied,
      borrowed,
    };
  }
  return out;
}

export function formatAccountData(a) {
  return {
    total_collateral_base: a.totalCollateralBase.toString(),
    total_debt_base: a.totalDebtBase.toString(),
    available_borrows_base: a.availableBorrowsBase.toString(),
    current_liquidation_threshold: a.currentLiquidationThreshold.toString(),
    ltv: a.ltv.toString(),
    health_factor: a.healthFactor.toString(),
    health_factor_decimal: a.healthFactor === MaxUint256 ? "max" : formatUnits(a.healthFactor, 18),
  };
}

// Per-wallet value of each reserve, in base currency (USD, 8 decimals), as
// Aave computes it: collateral rounded down, debt rounded up.
async function positionValues(chain, aave, user) {
  const rows = {};
  for (const s of Object.keys(RESERVES)) {
    const r = await aave.dataProvider.read("getUserReserveData", chain.addr(s), user);
    const price = await aave.oracle.read("getAssetPrice", chain.addr(s));
    const unit = 10n ** BigInt(chain.decimals[s]);
    const debt = r.currentStableDebt + r.currentVariableDebt;
    rows[s] = {
      collateral: r.usageAsCollateralEnabled ? (r.currentATokenBalance * price) / unit : 0n,
      debt: (debt * price + unit - 1n) / unit,
      stable: r.currentStableDebt,
      variable: r.currentVariableDebt,
    };
  }
  return rows;
}

// Checks each wallet against what it is meant to show; throws on a mismatch.
// Returns {key: accountData}.
export async function checkPositions(chain, aave, wallets) {
  const results = {};
  const fail = (k, msg) => { throw new Error(`Aave borrower ${k}: ${msg}`); };
  for (const [k, w] of Object.entries(wallets)) {
    const a = await aave.pool.read("getUserAccountData", w.address);
    const hf = a.healthFactor;
    const rows = await positionValues(chain, aave, w.address);
    const collaterals = Object.keys(rows).filter((s) => rows[s].collateral > 0n);
    const debts = Object.keys(rows).filter((s) => rows[s].debt > 0n);
    switch (k) {
      case "supplier":
      case "no_position":
        if (a.totalDebtBase !== 0n || hf !== MaxUint256) fail(k, `expected no debt and HF max, got debt ${a.totalDebtBase} HF ${hf}`);
        if (k === "no_position" && a.totalCollateralBase !== 0n) fail(k, "has collateral");
        break;
      case "healthy":
        if (hf < 3n * WAD) fail(k, `HF ${formatUnits(hf, 18)} is not > 3`);
        break;
      case "near_liquidation":
        if (hf <= WAD || hf >= (11n * WAD) / 10n) fail(k, `HF ${formatUnits(hf, 18)} is not in (1.0, 1.1)`);
        break;
      case "multi_asset":
        if (collaterals.length < 3 || debts.length < 3) fail(k, `collaterals ${collaterals} debts ${debts}`);
        if (hf <= WAD) fail(k, `HF ${formatUnits(hf, 18)} <= 1`);
        break;
      case "stable_and_variable":
        if (rows.USDC.stable === 0n || rows.DAI.variable === 0n) fail(k, "missing the stable USDC or variable DAI debt");
        break;
      case "emode": {
        const mode = await aave.pool.read("getUserEMode", w.address);
        if (mode !== BigInt(EMODE_STABLECOINS.id)) fail(k, `eMode is ${mode}`);
        if (a.currentLiquidationThreshold !== BigInt(EMODE_STABLECOINS.lt)) fail(k, `LT ${a.currentLiquidationThreshold} is not the eMode LT`);
        if (hf <= WAD) fail(k, `HF ${formatUnits(hf, 18)} <= 1`);
        // Same position at the reserve's own LT (80%) would be liquidatable.
        const outside = (a.totalCollateralBase * BigInt(RESERVES.DAI.lt) * WAD) / 10_000n / a.totalDebtBase;
        if (outside >= WAD) fail(k, `outside eMode HF would be ${formatUnits(outside, 18)}, expected < 1`);
        w.health_factor_without_emode = formatUnits(outside, 18);
        break;
      }
      case "collateral_cannot_liquidate": {
        // HF with LINK priced at zero: only WETH's collateral remains.
        const others = collaterals.filter((s) => s !== "LINK");
        const weighted = others.reduce((sum, s) => sum + rows[s].collateral * BigInt(RESERVES[s].lt), 0n);
        const hfWithoutLink = (weighted * WAD) / 10_000n / a.totalDebtBase;
        if (!collaterals.includes("LINK") || hfWithoutLink <= WAD) fail(k, `HF at LINK = 0 is ${formatUnits(hfWithoutLink, 18)}`);
        w.health_factor_at_link_zero = formatUnits(hfWithoutLink, 18);
        break;
      }
      default:
        fail(k, "no check defined");
    }
    results[k] = formatAccountData(a);
  }
  return results;
}
