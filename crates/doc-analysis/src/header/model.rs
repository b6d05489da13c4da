//! The ranker of header-field candidates: one logistic regression per field over the features
//! of [`super::rank`], trained by [`train`] from labelled candidates and shipped as the text
//! file `model.txt` beside this module.
//!
//! Its output is the probability that a candidate is the field's printed value. The best
//! candidate of a field is returned when that probability reaches the model's threshold;
//! below it the field is null. The probabilities are checked against held-out documents
//! (leave one source out) in docs/benchmarks.md.

use std::sync::LazyLock;

use doc_model::HeaderFieldName;

use super::rank::{feature_count, feature_names};
use super::trees::{BoostOptions, Node, Tree, boost};

/// Why a model file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelError {
    /// A line the format does not know, or a number that does not parse.
    #[error("model file line {line}: {what}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        what: String,
    },
    /// The model was made for another list of features than this build computes.
    #[error("the model's features are not this build's ({0})")]
    Features(String),
}

/// One field's regression: standardisation, weights and bias.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldModel {
    /// The field.
    pub field: HeaderFieldName,
    /// Mean of each feature over the training candidates of this field.
    pub mean: Vec<f64>,
    /// Spread of each feature (1 where constant).
    pub scale: Vec<f64>,
    /// Weight of each standardised feature.
    pub weights: Vec<f64>,
    /// The intercept.
    pub bias: f64,
    /// Boosted trees added to the regression's log-odds (none for a linear model).
    pub trees: Vec<Tree>,
}

impl FieldModel {
    /// The probability that a candidate with these features is right.
    pub fn probability(&self, features: &[f64]) -> f64 {
        sigmoid(self.linear(features) + self.trees.iter().map(|t| t.value(features)).sum::<f64>())
    }

    /// The regression's log-odds alone.
    fn linear(&self, features: &[f64]) -> f64 {
        self.bias
            + features
                .iter()
                .zip(&self.mean)
                .zip(&self.scale)
                .zip(&self.weights)
                .map(|(((x, m), s), w)| w * (x - m) / s)
                .sum::<f64>()
    }
}

/// Every field's regression and the threshold under which a field is null.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The least probability a returned value needs.
    pub threshold: f64,
    /// The fields the model ranks; the others keep the rules' order.
    pub fields: Vec<FieldModel>,
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The field names used in the model file (the ground truth's keys).
pub fn field_key(field: HeaderFieldName) -> &'static str {
    use HeaderFieldName as F;
    match field {
        F::InvoiceNumber => "invoice_number",
        F::IssueDate => "issue_date",
        F::DueDate => "due_date",
        F::Currency => "currency",
        F::SellerName => "seller_name",
        F::SellerVatId => "seller_vat_id",
        F::BuyerName => "buyer_name",
        F::NetTotal => "net_total",
        F::TaxTotal => "tax_total",
        F::GrossTotal => "grand_total",
        F::AmountDue => "due_payable",
        F::Iban => "iban",
        F::Bic => "bic",
        F::OrderNumber => "order_reference",
        F::SellerTaxNumber => "seller_tax_number",
        F::DocumentType => "document_type",
        F::CustomerNumber => "customer_number",
        F::DeliveryDate => "delivery_date",
        F::BuyerVatId => "buyer_vat_id",
        F::PaymentTerms => "payment_terms",
        F::SellerAddress => "seller_address",
        F::BuyerAddress => "buyer_address",
    }
}

/// The field a model-file key names.
pub fn field_of_key(key: &str) -> Option<HeaderFieldName> {
    HeaderFieldName::ALL
        .iter()
        .copied()
        .find(|f| field_key(*f) == key)
}

impl Model {
    /// The model shipped with this build (`model.txt`), if it parses.
    pub fn shipped() -> Option<&'static Self> {
        SHIPPED.as_ref()
    }

    /// The regression of a field, if the model ranks it.
    pub fn field(&self, field: HeaderFieldName) -> Option<&FieldModel> {
        self.fields.iter().find(|f| f.field == field)
    }

    /// Reads a model file (the format [`Model::to_text`] writes).
    pub fn parse(text: &str) -> Result<Self, ModelError> {
        let mut threshold = 0.5;
        let mut fields: Vec<FieldModel> = Vec::new();
        let syntax = |line: usize, what: &str| ModelError::Syntax {
            line,
            what: what.to_string(),
        };
        let numbers = |line: usize, rest: &[&str]| -> Result<Vec<f64>, ModelError> {
            let values: Result<Vec<f64>, _> = rest.iter().map(|v| v.parse::<f64>()).collect();
            let values = values.map_err(|_| syntax(line, "not a number"))?;
            if values.len() != feature_count() {
                return Err(syntax(line, "wrong number of values"));
            }
            Ok(values)
        };
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let parts: Vec<&str> = line.split_whitespace().collect();
            let Some((head, rest)) = parts.split_first() else {
                continue;
            };
            match *head {
                h if h.starts_with('#') => {}
                "features" => {
                    let names: Vec<String> = rest.iter().map(|s| (*s).to_string()).collect();
                    if names != feature_names() {
                        return Err(ModelError::Features(format!(
                            "{} in the file, {} here",
                            names.len(),
                            feature_count()
                        )));
                    }
                }
                "threshold" => {
                    threshold = rest
                        .first()
                        .and_then(|v| v.parse().ok())
                        .ok_or_else(|| syntax(number, "threshold"))?;
                }
                "field" => {
                    let (Some(key), Some(bias)) = (rest.first(), rest.get(2)) else {
                        return Err(syntax(number, "field <name> bias <number>"));
                    };
                    let field = field_of_key(key).ok_or_else(|| syntax(number, "unknown field"))?;
                    let bias = bias
                        .parse()
                        .map_err(|_| syntax(number, "bias is not a number"))?;
                    fields.push(FieldModel {
                        field,
                        mean: Vec::new(),
                        scale: Vec::new(),
                        weights: Vec::new(),
                        bias,
                        trees: Vec::new(),
                    });
                }
                "mean" | "scale" | "weight" => {
                    let current = fields
                        .last_mut()
                        .ok_or_else(|| syntax(number, "values before a field line"))?;
                    let values = numbers(number, rest)?;
                    match *head {
                        "mean" => current.mean = values,
                        "scale" => current.scale = values,
                        _ => current.weights = values,
                    }
                }
                "tree" => {
                    let current = fields
                        .last_mut()
                        .ok_or_else(|| syntax(number, "a tree before a field line"))?;
                    let tree = Tree::parse(rest)
                        .filter(|t| {
                            t.nodes.iter().all(|n| match n {
                                Node::Split { feature, .. } => *feature < feature_count(),
                                Node::Leaf(_) => true,
                            })
                        })
                        .ok_or_else(|| syntax(number, "malformed tree"))?;
                    current.trees.push(tree);
                }
                _ => return Err(syntax(number, "unknown line")),
            }
        }
        if let Some(incomplete) = fields
            .iter()
            .find(|f| f.weights.len() != feature_count() || f.scale.len() != feature_count())
        {
            return Err(ModelError::Syntax {
                line: 0,
                what: format!("{} lacks weights or scales", field_key(incomplete.field)),
            });
        }
        Ok(Self { threshold, fields })
    }

    /// The model file: a comment, the feature names, the threshold, then per field its bias,
    /// its mean, scale and weight vectors (9 significant digits each) and its trees.
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# Header-field ranker: per field a logistic regression over standardised features\n\
             # and boosted trees added to its log-odds.\n\
             # Made by `cargo run --release -p pdf-extract-core --example invoice_model -- train`\n\
             # from testdata/invoice-model/candidates.tsv.gz; do not edit by hand.\n",
        );
        out.push_str(&format!("features {}\n", feature_names().join(" ")));
        out.push_str(&format!("threshold {}\n", self.threshold));
        let row = |values: &[f64]| {
            values
                .iter()
                .map(|v| format!("{v:.9e}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for f in &self.fields {
            out.push_str(&format!(
                "field {} bias {:.9e}\n",
                field_key(f.field),
                f.bias
            ));
            out.push_str(&format!("mean {}\n", row(&f.mean)));
            out.push_str(&format!("scale {}\n", row(&f.scale)));
            out.push_str(&format!("weight {}\n", row(&f.weights)));
            for tree in &f.trees {
                out.push_str(&format!("tree {}\n", tree.to_text()));
            }
        }
        out
    }
}

/// The shipped model, read once. A file that does not parse (a test guards it) leaves every
/// field to the rules' order.
pub(super) static SHIPPED: LazyLock<Option<Model>> = LazyLock::new(|| {
    Model::parse(include_str!("model.txt"))
        .inspect_err(|e| tracing::warn!(error = %e, "header model refused; rules rank alone"))
        .ok()
});

/// One labelled candidate for training.
#[derive(Debug, Clone)]
pub struct Example {
    /// The field it was proposed for.
    pub field: HeaderFieldName,
    /// Its features ([`super::rank::feature_names`]).
    pub features: Vec<f64>,
    /// Whether its value is the field's true value.
    pub correct: bool,
}

/// How [`train`] fits.
#[derive(Debug, Clone, Copy)]
pub struct TrainOptions {
    /// L2 penalty on the standardised weights (the bias is not penalised).
    pub l2: f64,
    /// Newton steps.
    pub iterations: usize,
    /// The threshold written into the model.
    pub threshold: f64,
    /// Trees boosted on the regression's log-odds; `None` for the regression alone.
    pub boost: Option<BoostOptions>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        Self {
            l2: 2.0,
            iterations: 12,
            threshold: 0.5,
            boost: Some(BoostOptions::default()),
        }
    }
}

/// Fits one regression per field that has both right and wrong candidates, by Newton's method
/// on the penalised log-likelihood (deterministic: the same examples give the same model).
pub fn train(examples: &[Example], options: TrainOptions) -> Model {
    let mut fields = Vec::new();
    for field in HeaderFieldName::ALL {
        let rows: Vec<&Example> = examples.iter().filter(|e| e.field == *field).collect();
        let positives = rows.iter().filter(|e| e.correct).count();
        if positives == 0 || positives == rows.len() {
            continue;
        }
        fields.push(fit_field(*field, &rows, options));
    }
    Model {
        threshold: options.threshold,
        fields,
    }
}

#[expect(
    clippy::needless_range_loop,
    reason = "the Hessian is filled by row and column index"
)]
fn fit_field(field: HeaderFieldName, rows: &[&Example], options: TrainOptions) -> FieldModel {
    let d = feature_count();
    let n = rows.len() as f64;
    let mut mean = vec![0.0; d];
    for r in rows {
        for (m, x) in mean.iter_mut().zip(&r.features) {
            *m += x / n;
        }
    }
    let mut scale = vec![0.0; d];
    for r in rows {
        for ((s, x), m) in scale.iter_mut().zip(&r.features).zip(&mean) {
            *s += (x - m) * (x - m) / n;
        }
    }
    for s in &mut scale {
        *s = if *s > 1e-12 { s.sqrt() } else { 1.0 };
    }
    let standardised: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| {
            let mut z: Vec<f64> = r
                .features
                .iter()
                .zip(&mean)
                .zip(&scale)
                .map(|((x, m), s)| (x - m) / s)
                .collect();
            z.push(1.0);
            z
        })
        .collect();
    let labels: Vec<f64> = rows
        .iter()
        .map(|r| f64::from(u8::from(r.correct)))
        .collect();
    // Parameters: d weights then the bias.
    let mut theta = vec![0.0; d + 1];
    for _ in 0..options.iterations {
        let mut gradient = vec![0.0; d + 1];
        let mut hessian = vec![vec![0.0; d + 1]; d + 1];
        for (z, y) in standardised.iter().zip(&labels) {
            let p = sigmoid(z.iter().zip(&theta).map(|(a, b)| a * b).sum());
            let w = (p * (1.0 - p)).max(1e-9);
            for i in 0..=d {
                gradient[i] += (p - y) * z[i];
                if z[i] == 0.0 {
                    continue;
                }
                for j in i..=d {
                    hessian[i][j] += w * z[i] * z[j];
                }
            }
        }
        for i in 0..d {
            gradient[i] += options.l2 * theta[i];
            hessian[i][i] += options.l2;
        }
        // A tiny ridge on the bias keeps the system solvable when every row is alike.
        hessian[d][d] += 1e-6;
        for i in 0..=d {
            for j in 0..i {
                hessian[i][j] = hessian[j][i];
            }
        }
        let Some(step) = solve_symmetric(hessian, gradient) else {
            break;
        };
        for (t, s) in theta.iter_mut().zip(&step) {
            *t -= s;
        }
    }
    let bias = theta[d];
    theta.truncate(d);
    let mut model = FieldModel {
        field,
        mean,
        scale,
        weights: theta,
        bias,
        trees: Vec::new(),
    };
    if let Some(boost_options) = options.boost {
        let features: Vec<&[f64]> = rows.iter().map(|r| r.features.as_slice()).collect();
        let base: Vec<f64> = features.iter().map(|x| model.linear(x)).collect();
        model.trees = boost(&features, &labels, &base, boost_options);
    }
    model
}

/// Solves `a x = b` for a symmetric positive definite `a` by Cholesky; `None` when `a` is not.
#[expect(
    clippy::needless_range_loop,
    reason = "the factorisation reads rows and columns by index, as it is written down"
)]
fn solve_symmetric(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for j in 0..n {
        let mut diagonal = a[j][j];
        for k in 0..j {
            diagonal -= a[j][k] * a[j][k];
        }
        if diagonal <= 0.0 {
            return None;
        }
        let diagonal = diagonal.sqrt();
        a[j][j] = diagonal;
        for i in j + 1..n {
            let mut v = a[i][j];
            for k in 0..j {
                v -= a[i][k] * a[j][k];
            }
            a[i][j] = v / diagonal;
        }
    }
    for i in 0..n {
        for k in 0..i {
            b[i] -= a[i][k] * b[k];
        }
        b[i] /= a[i][i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            b[i] -= a[k][i] * b[k];
        }
        b[i] /= a[i][i];
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(field: HeaderFieldName, signal: f64, correct: bool) -> Example {
        let mut features = vec![0.0; feature_count()];
        features[0] = signal;
        Example {
            field,
            features,
            correct,
        }
    }

    #[test]
    fn learns_a_separating_feature_and_round_trips_its_file() {
        let examples: Vec<Example> = (0..40)
            .map(|i| example(HeaderFieldName::IssueDate, f64::from(i % 2), i % 2 == 1))
            .collect();
        let model = train(&examples, TrainOptions::default());
        let field = model.field(HeaderFieldName::IssueDate).expect("fitted");
        let mut on = vec![0.0; feature_count()];
        on[0] = 1.0;
        let off = vec![0.0; feature_count()];
        assert!(field.probability(&on) > 0.8, "{}", field.probability(&on));
        assert!(field.probability(&off) < 0.2);
        let reread = Model::parse(&model.to_text()).expect("parses");
        let again = reread.field(HeaderFieldName::IssueDate).expect("kept");
        assert!((again.probability(&on) - field.probability(&on)).abs() < 1e-6);
        // A field with only wrong candidates is left to the rules.
        assert!(model.field(HeaderFieldName::DueDate).is_none());
    }

    #[test]
    fn refuses_another_feature_list_and_bad_numbers() {
        assert!(matches!(
            Model::parse("features a b c\n"),
            Err(ModelError::Features(_))
        ));
        assert!(matches!(
            Model::parse("threshold x\n"),
            Err(ModelError::Syntax { line: 1, .. })
        ));
        assert!(matches!(
            Model::parse("field issue_date bias 0\nmean 1 2\n"),
            Err(ModelError::Syntax { line: 2, .. })
        ));
    }

    #[test]
    fn the_shipped_model_is_the_one_the_committed_table_makes() {
        let shipped = SHIPPED.as_ref().expect("the shipped model parses");
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/invoice-model/candidates.tsv.gz"
        );
        let mut text = String::new();
        let file = std::fs::File::open(path).expect("the committed table");
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(file), &mut text)
            .expect("gzip text");
        let docs = super::super::training::parse_table(&text).expect("table parses");
        let options = TrainOptions {
            threshold: shipped.threshold,
            ..TrainOptions::default()
        };
        let made = train(&super::super::training::examples_of(docs.iter()), options);
        assert_eq!(made.fields.len(), shipped.fields.len());
        for (a, b) in made.fields.iter().zip(&shipped.fields) {
            assert_eq!(a.field, b.field);
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-6 * (1.0 + x.abs().max(y.abs()));
            assert!(close(a.bias, b.bias), "{:?} bias", a.field);
            for (x, y) in a.weights.iter().zip(&b.weights) {
                assert!(close(*x, *y), "{:?}: {x} vs {y}", a.field);
            }
            for (x, y) in a.mean.iter().zip(&b.mean) {
                assert!(close(*x, *y), "{:?} mean", a.field);
            }
            assert_eq!(a.trees.len(), b.trees.len(), "{:?} trees", a.field);
            let probe: Vec<f64> = (0..feature_count()).map(|i| (i % 3) as f64 / 2.0).collect();
            assert!(
                close(a.probability(&probe), b.probability(&probe)),
                "{:?}",
                a.field
            );
        }
    }

    #[test]
    fn cholesky_solves() {
        let a = vec![vec![4.0, 2.0], vec![2.0, 3.0]];
        let x = solve_symmetric(a, vec![2.0, 1.0]).expect("definite");
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12);
        assert!(solve_symmetric(vec![vec![0.0]], vec![1.0]).is_none());
    }
}
