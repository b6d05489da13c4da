//! `/`: the page for people, generated from the same route table as OpenAPI, `/pricing`,
//! `/llms.txt` and `/mcp`: what the service does, every paid route with its price, input fields
//! and an example request, a "try it" that sends the example unpaid and shows the 402 terms
//! decoded, and links to the machine-readable documents. The script and the style sheet are
//! built into the binary and served from the service itself; no CDN, no third-party script.

use serde_json::Value;

use crate::catalog::{FreeRouteDoc, PaidRouteDoc, ServiceDoc};

/// Path of the page's script.
pub const SCRIPT_PATH: &str = "/assets/landing.js";
/// Path of the page's style sheet.
pub const STYLE_PATH: &str = "/assets/landing.css";
/// Where the service's icon is served (the path catalogues look for first among images).
pub const FAVICON_PATH: &str = "/favicon.svg";
/// The icon: the status code the services live by, drawn by hand.
pub const FAVICON: &str = include_str!("landing/favicon.svg");
/// The page's script: the try-it buttons.
pub const SCRIPT: &str = include_str!("landing/landing.js");
/// The page's style sheet.
pub const STYLE: &str = include_str!("landing/landing.css");
/// The page's Content-Security-Policy: only its own script, style and requests.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Text made safe for HTML element content and double-quoted attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A property schema's type in a few words (`string`, `integer`, `one of: a, b`, `array of string`).
fn type_words(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect();
        return format!("one of: {}", values.join(", "));
    }
    match schema.get("type") {
        Some(Value::String(kind)) if kind == "array" => {
            let item = schema.get("items").map_or_else(String::new, type_words);
            if item.is_empty() {
                "array".into()
            } else {
                format!("array of {item}")
            }
        }
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .filter(|kind| *kind != "null")
            .collect::<Vec<_>>()
            .join(" or "),
        _ if schema.get("$ref").is_some() => "object (see the schema)".into(),
        _ => schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
            .map(|options| {
                options
                    .iter()
                    .map(type_words)
                    .filter(|words| !words.is_empty() && words != "null")
                    .collect::<Vec<_>>()
                    .join(" or ")
            })
            .unwrap_or_default(),
    }
}

fn fields_table(schema: &Value) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut rows = String::new();
    for (name, property) in properties {
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        rows.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(name),
            escape(&type_words(property)),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                ""
            },
            escape(description)
        ));
    }
    format!(
        "<table class=\"fields\"><thead><tr><th>field</th><th>type</th><th>required</th><th>meaning</th></tr></thead><tbody>\n{rows}</tbody></table>"
    )
}

fn route_section(route: &PaidRouteDoc) -> String {
    let example = serde_json::to_string_pretty(route.input.example()).unwrap_or_default();
    let id = route.operation_id;
    format!(
        r#"<section class="route" id="{id}">
<h3><span class="method">POST</span> <code>{path}</code> <span class="tool">tool <code>{id}</code></span></h3>
<p class="summary">{summary}</p>
<p class="price">Price: {price}</p>
<details><summary>What it returns</summary><p>{description}</p></details>
<h4>Input fields</h4>
{fields}
<h4>Example request</h4>
<textarea class="example" id="example-{id}" spellcheck="false" rows="{rows}" aria-label="example request body for {path}">{example_text}</textarea>
<p><button type="button" class="try" data-path="{path}" data-example="example-{id}" data-output="output-{id}">Try it unpaid: show the 402 terms</button></p>
<pre class="output" id="output-{id}" aria-live="polite"></pre>
</section>
"#,
        path = escape(route.path),
        summary = escape(route.summary),
        price = escape(&route.price_label),
        description = escape(&route.description),
        fields = fields_table(route.input.schema()),
        rows = example.lines().count().clamp(3, 16),
        example_text = escape(&example),
    )
}

/// The page.
pub fn landing_html(
    service: &ServiceDoc,
    base_url: &str,
    paid: &[PaidRouteDoc],
    free: &[FreeRouteDoc],
) -> String {
    let routes: String = paid.iter().map(route_section).collect();
    let index: String = paid
        .iter()
        .map(|route| {
            format!(
                "<li><a href=\"#{id}\"><code>POST {path}</code></a>: {summary} ({price})</li>\n",
                id = route.operation_id,
                path = escape(route.path),
                summary = escape(route.summary),
                price = escape(&route.price_label)
            )
        })
        .collect();
    let free_list: String = free
        .iter()
        .map(|route| {
            format!(
                "<li><a href=\"{path}\"><code>GET {path}</code></a>: {summary}</li>\n",
                path = escape(route.path),
                summary = escape(route.summary)
            )
        })
        .collect();
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{style}">
<script src="{script}" defer></script>
</head>
<body>
<header>
<h1>{title}</h1>
<p>{description}</p>
<p class="links"><a href="/openapi.json">OpenAPI 3.1</a> · <a href="/llms.txt">llms.txt</a> · <a href="/pricing">pricing</a> · <a href="/.well-known/x402">/.well-known/x402</a> · MCP: <code>POST {base}/mcp</code></p>
</header>
<main>
<section class="paying">
<h2>Paying</h2>
<p>Every route below is paid per request with <strong>x402 v2</strong>: {asset} on <code>{network}</code> to <code>{pay_to}</code>. A request without payment is answered <strong>402</strong> with the terms (header <code>PAYMENT-REQUIRED</code>, base64 JSON, and the JSON body). Sign an EIP-3009 authorisation for the exact amount with any x402 client and repeat the request with header <code>PAYMENT-SIGNATURE</code>. Failed, empty or timed-out work is never settled; errors carry <code>"charged": false</code>. Agents can use the same routes as MCP tools at <code>{base}/mcp</code>.</p>
<ul class="index">
{index}</ul>
</section>
<section class="routes">
<h2>Routes</h2>
{routes}</section>
<section class="free">
<h2>Free routes</h2>
<ul>
{free_list}</ul>
</section>
</main>
</body>
</html>
"#,
        title = escape(service.title),
        description = escape(service.description),
        style = STYLE_PATH,
        script = SCRIPT_PATH,
        base = escape(base_url),
        asset = escape(service.asset_symbol),
        network = escape(&service.network),
        pay_to = escape(&service.pay_to),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_escaped_for_content_and_attributes() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn field_types_are_worded() {
        assert_eq!(type_words(&json!({"type": "string"})), "string");
        assert_eq!(
            type_words(&json!({"enum": ["base", "ethereum"]})),
            "one of: base, ethereum"
        );
        assert_eq!(
            type_words(&json!({"type": "array", "items": {"type": "integer"}})),
            "array of integer"
        );
        assert_eq!(type_words(&json!({"type": ["string", "null"]})), "string");
        assert_eq!(
            type_words(&json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            "string"
        );
    }
}
