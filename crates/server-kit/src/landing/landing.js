// The try-it buttons of the service page: send the example body unpaid, decode the
// PAYMENT-REQUIRED header of the 402 (base64 JSON, x402 v2) and show the terms.
"use strict";

function decodeHeader(value) {
  const bytes = Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

function show(output, text, kind) {
  output.textContent = text;
  output.dataset.state = kind;
}

async function tryRoute(button) {
  const output = document.getElementById(button.dataset.output);
  const example = document.getElementById(button.dataset.example);
  let body;
  try {
    body = JSON.stringify(JSON.parse(example.value));
  } catch (error) {
    show(output, `The example is not JSON: ${error.message}`, "error");
    return;
  }
  show(output, "sending…", "pending");
  button.disabled = true;
  try {
    const response = await fetch(button.dataset.path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const header = response.headers.get("payment-required");
    if (response.status === 402 && header) {
      const terms = decodeHeader(header);
      const offer = terms.accepts && terms.accepts[0];
      const lines = [`HTTP 402 Payment Required: ${terms.error || ""}`];
      if (offer) {
        lines.push(
          `pay ${offer.amount} atomic units of ${offer.extra && offer.extra.name ? offer.extra.name : offer.asset}`,
          `asset ${offer.asset} on ${offer.network}, scheme ${offer.scheme}`,
          `to ${offer.payTo}, valid for ${offer.maxTimeoutSeconds} s`,
        );
      }
      // The bazaar extension repeats the input schema shown above; its keys are named only.
      const { extensions, ...core } = terms;
      lines.push("", "PAYMENT-REQUIRED decoded:", JSON.stringify(core, null, 2));
      if (extensions) lines.push(`extensions: ${Object.keys(extensions).join(", ")} (input schema and example, as above)`);
      show(output, lines.join("\n"), "terms");
    } else {
      const text = await response.text();
      let shown = text;
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
      } catch (_) {
        // not JSON: shown as sent
      }
      show(output, `HTTP ${response.status}\n${shown}`, response.ok ? "terms" : "error");
    }
  } catch (error) {
    show(output, `The request failed: ${error.message}`, "error");
  } finally {
    button.disabled = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button.try")) {
    button.addEventListener("click", () => tryRoute(button));
  }
});
