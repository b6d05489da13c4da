#![doc = include_str!("../README.md")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tract_onnx::prelude::*;

mod detect;
mod recognize;

pub use detect::TextBox;
pub use recognize::{Recognized, Word, otsu_threshold};

/// File name of the detection model (PP-OCRv4 DB, as the `rapidocr-onnxruntime` 1.4.4 wheel
/// ships it).
pub const DETECTION_MODEL: &str = "ch_PP-OCRv4_det_infer.onnx";
/// File name of the recognition model (PP-OCRv4 SVTR-LCNet, Chinese and Latin characters; its
/// character list is in the model's `character` metadata).
pub const RECOGNITION_MODEL: &str = "ch_PP-OCRv4_rec_infer.onnx";

/// Why the models could not be loaded or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PpOcrError {
    /// A model file is absent.
    #[error("PP-OCR model {0} not found (installed by `cargo xtask models`)")]
    MissingModel(PathBuf),
    /// The model file does not load as the expected network.
    #[error("PP-OCR model {path}: {message}")]
    Model {
        /// The file.
        path: PathBuf,
        /// What tract said.
        message: String,
    },
    /// Running a network failed.
    #[error("PP-OCR inference: {0}")]
    Inference(String),
    /// The picture's pixel buffer does not match its dimensions.
    #[error("{width}x{height} picture with {actual} bytes")]
    BufferSize {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// Bytes given.
        actual: usize,
    },
}

/// One line of text found and read: its box on the picture (pixels, top-left origin) and
/// what the recogniser read in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Where the detector found the line.
    pub bbox: TextBox,
    /// The reading.
    pub text: Recognized,
}

type Plan = Arc<TypedRunnableModel>;

/// A network whose input size varies: the parsed model is kept, and an optimised plan is made
/// once per input shape (tract cannot simplify the models' shape arithmetic symbolically).
/// Callers round shapes to a few sizes so the cache stays small.
struct ShapedModel {
    path: PathBuf,
    model: InferenceModel,
    plans: Mutex<HashMap<[usize; 4], Plan>>,
}

impl std::fmt::Debug for ShapedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShapedModel({})", self.path.display())
    }
}

impl ShapedModel {
    fn load(path: &Path) -> Result<(Self, Vec<(String, String)>), PpOcrError> {
        if !path.is_file() {
            return Err(PpOcrError::MissingModel(path.to_path_buf()));
        }
        let model_error = |e: TractError| PpOcrError::Model {
            path: path.to_path_buf(),
            message: format!("{e:#}"),
        };
        let onnx = tract_onnx::onnx();
        let proto = onnx.proto_model_for_path(path).map_err(model_error)?;
        let metadata = proto
            .metadata_props
            .iter()
            .map(|p| (p.key.clone(), p.value.clone()))
            .collect();
        let model = onnx.model_for_proto_model(&proto).map_err(model_error)?;
        Ok((
            Self {
                path: path.to_path_buf(),
                model,
                plans: Mutex::new(HashMap::new()),
            },
            metadata,
        ))
    }

    fn plan(&self, shape: [usize; 4]) -> Result<Plan, PpOcrError> {
        if let Some(plan) = self.plans.lock().ok().and_then(|p| p.get(&shape).cloned()) {
            return Ok(plan);
        }
        let plan = self
            .model
            .clone()
            .with_input_fact(0, f32::fact(shape).into())
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| PpOcrError::Model {
                path: self.path.clone(),
                message: format!("input {shape:?}: {e:#}"),
            })?;
        if let Ok(mut plans) = self.plans.lock() {
            plans.insert(shape, Arc::clone(&plan));
        }
        Ok(plan)
    }

    /// Runs the network on grey pictures, each `(pixels, width)` of `canvas.1` rows at most,
    /// placed at the top left of its own `canvas` (width, height) whose rest is `padding` (a
    /// normalised value), the grey repeated in the three colour channels: one input of shape
    /// `[pictures, 3, height, width]`. Returns the output's shape and values.
    fn run_grey_batch(
        &self,
        pictures: &[(&[u8], usize)],
        canvas: (usize, usize),
        padding: f32,
    ) -> Result<(Vec<usize>, Vec<f32>), PpOcrError> {
        let (canvas_w, canvas_h) = canvas;
        let plane_len = canvas_w * canvas_h;
        let mut input = Vec::with_capacity(pictures.len() * 3 * plane_len);
        for &(picture, width) in pictures {
            let mut plane = vec![padding; plane_len];
            let height = (picture.len() / width.max(1)).min(canvas_h);
            for y in 0..height {
                for x in 0..width.min(canvas_w) {
                    plane[y * canvas_w + x] = detect::normalised(picture[y * width + x]);
                }
            }
            for _ in 0..3 {
                input.extend_from_slice(&plane);
            }
        }
        let shape = [pictures.len(), 3, canvas_h, canvas_w];
        let plan = self.plan(shape)?;
        let inference = |e: TractError| PpOcrError::Inference(format!("{e:#}"));
        let tensor = Tensor::from_shape(&shape, &input).map_err(inference)?;
        let mut outputs = plan.run(tvec!(tensor.into())).map_err(inference)?;
        if outputs.is_empty() {
            return Err(PpOcrError::Inference("the network gave no output".into()));
        }
        let output = outputs.remove(0).into_tensor();
        let values = output.to_plain_array_view::<f32>().map_err(inference)?;
        Ok((output.shape().to_vec(), values.iter().copied().collect()))
    }
}

/// A grey picture: `width × height` bytes, row by row.
#[derive(Debug, Clone, Copy)]
pub struct GreyPixels<'a> {
    width: u32,
    height: u32,
    pixels: &'a [u8],
}

impl<'a> GreyPixels<'a> {
    /// Checks that `pixels` holds `width × height` bytes.
    pub fn new(width: u32, height: u32, pixels: &'a [u8]) -> Result<Self, PpOcrError> {
        if pixels.len() != width as usize * height as usize || width == 0 || height == 0 {
            return Err(PpOcrError::BufferSize {
                width,
                height,
                actual: pixels.len(),
            });
        }
        Ok(Self {
            width,
            height,
            pixels,
        })
    }

    fn at(&self, x: u32, y: u32) -> u8 {
        self.pixels[y as usize * self.width as usize + x as usize]
    }
}

/// The detection and recognition networks, loaded once and shared between threads.
pub struct PpOcr {
    detector: ShapedModel,
    recognizer: ShapedModel,
    characters: Vec<String>,
    threads: usize,
    /// The detector's matrix products on `threads` threads; `None` for one.
    executor: Option<tract_linalg::multithread::Executor>,
}

impl std::fmt::Debug for PpOcr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PpOcr")
            .field("detector", &self.detector)
            .field("recognizer", &self.recognizer)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl PpOcr {
    /// Loads [`DETECTION_MODEL`] and [`RECOGNITION_MODEL`] from `dir`.
    pub fn load(dir: &Path) -> Result<Self, PpOcrError> {
        let (detector, _) = ShapedModel::load(&dir.join(DETECTION_MODEL))?;
        let rec_path = dir.join(RECOGNITION_MODEL);
        let (recognizer, metadata) = ShapedModel::load(&rec_path)?;
        let characters = recognize::character_list(&metadata).ok_or(PpOcrError::Model {
            path: rec_path,
            message: "no `character` list in the model's metadata".into(),
        })?;
        Ok(Self {
            detector,
            recognizer,
            characters,
            threads: 1,
            executor: None,
        })
    }

    /// Reads each picture on up to `threads` threads (at least one): the detector's matrix
    /// products are split between them, and the lines are read by them side by side.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        // Without a pool of its own (the system refused threads) the detector runs on one.
        self.executor = (self.threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .thread_name(|n| format!("pp-ocr-{n}"))
                    .num_threads(self.threads)
                    .build()
                    .ok()
            })
            .flatten()
            .map(|pool| tract_linalg::multithread::Executor::MultiThread(Arc::new(pool)));
        self
    }

    /// The number of threads a picture is read on.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Finds the lines of text on `picture` and reads each, top to bottom.
    pub fn read(&self, picture: GreyPixels<'_>) -> Result<Vec<Line>, PpOcrError> {
        let boxes = self.detect(picture)?;
        self.recognise(picture, &boxes)
    }

    /// The boxes of the lines of text on `picture`, top to bottom (the detector alone).
    pub fn detect(&self, picture: GreyPixels<'_>) -> Result<Vec<TextBox>, PpOcrError> {
        match &self.executor {
            Some(executor) => {
                tract_linalg::multithread::multithread_tract_scope(executor.clone(), || {
                    detect::find_lines(&self.detector, picture)
                })
            }
            None => detect::find_lines(&self.detector, picture),
        }
    }

    /// Reads the lines in `boxes` on `picture`, in their order; lines where nothing was read
    /// with confidence are left out.
    pub fn recognise(
        &self,
        picture: GreyPixels<'_>,
        boxes: &[TextBox],
    ) -> Result<Vec<Line>, PpOcrError> {
        let read = recognize::read_lines(
            &self.recognizer,
            &self.characters,
            picture,
            boxes,
            self.threads,
        )?;
        Ok(boxes
            .iter()
            .zip(read)
            .filter(|(_, text)| !text.text.trim().is_empty())
            .map(|(bbox, text)| Line { bbox: *bbox, text })
            .collect())
    }
}
