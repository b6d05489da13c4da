//! The wire between the server and a worker: a frame is a JSON header (what to do, or what came
//! of it) and an opaque blob (the caller's file, or the answer), each preceded by its length.
//!
//! `u32` little-endian header length, the header, `u64` little-endian blob length, the blob.
//! Both sides bound the lengths they accept, so neither a confused worker nor a confused server
//! makes the other allocate without limit.

use std::io::{self, Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::error::IsolateError;

/// Largest header either side accepts.
pub const MAX_HEADER_BYTES: u32 = 1024 * 1024;

/// One message: a typed header and the bytes that go with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<H> {
    /// What the message says.
    pub header: H,
    /// The bytes it carries (may be empty).
    pub blob: Vec<u8>,
}

fn encode_header<H: Serialize>(header: &H) -> Result<Vec<u8>, IsolateError> {
    let bytes = serde_json::to_vec(header).map_err(|e| IsolateError::Protocol(e.to_string()))?;
    if bytes.len() > MAX_HEADER_BYTES as usize {
        return Err(IsolateError::Protocol(format!(
            "header of {} bytes over the limit of {MAX_HEADER_BYTES}",
            bytes.len()
        )));
    }
    Ok(bytes)
}

fn decode_header<H: DeserializeOwned>(bytes: &[u8]) -> Result<H, IsolateError> {
    serde_json::from_slice(bytes).map_err(|e| IsolateError::Protocol(e.to_string()))
}

fn check_blob_length(length: u64, max_blob: u64) -> Result<usize, IsolateError> {
    if length > max_blob {
        return Err(IsolateError::Protocol(format!(
            "blob of {length} bytes over the limit of {max_blob}"
        )));
    }
    usize::try_from(length).map_err(|_| IsolateError::Protocol("blob length".into()))
}

fn check_header_length(length: u32) -> Result<usize, IsolateError> {
    if length > MAX_HEADER_BYTES {
        return Err(IsolateError::Protocol(format!(
            "header of {length} bytes over the limit of {MAX_HEADER_BYTES}"
        )));
    }
    Ok(length as usize)
}

/// Writes one frame (async side: the server).
pub(crate) async fn write_async<W, H>(
    writer: &mut W,
    header: &H,
    blob: &[u8],
) -> Result<(), IsolateError>
where
    W: AsyncWrite + Unpin,
    H: Serialize,
{
    let header = encode_header(header)?;
    let header_len = u32::try_from(header.len()).unwrap_or(u32::MAX);
    writer.write_all(&header_len.to_le_bytes()).await?;
    writer.write_all(&header).await?;
    writer.write_all(&(blob.len() as u64).to_le_bytes()).await?;
    writer.write_all(blob).await?;
    writer.flush().await?;
    Ok(())
}

/// Reads one frame (async side: the server); `max_blob` bounds what the worker may send.
pub(crate) async fn read_async<R, H>(
    reader: &mut R,
    max_blob: u64,
) -> Result<Frame<H>, IsolateError>
where
    R: AsyncRead + Unpin,
    H: DeserializeOwned,
{
    let header_len = check_header_length(reader.read_u32_le().await?)?;
    let mut header = vec![0; header_len];
    reader.read_exact(&mut header).await?;
    let blob_len = check_blob_length(reader.read_u64_le().await?, max_blob)?;
    let mut blob = Vec::new();
    // `take` grows the buffer as bytes arrive instead of trusting the length up front.
    let read = reader.take(blob_len as u64).read_to_end(&mut blob).await?;
    if read != blob_len {
        return Err(IsolateError::Io(io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(Frame {
        header: decode_header(&header)?,
        blob,
    })
}

/// Writes one frame (blocking side: the worker).
pub fn write_blocking<W: Write, H: Serialize>(
    writer: &mut W,
    header: &H,
    blob: &[u8],
) -> Result<(), IsolateError> {
    let header = encode_header(header)?;
    let header_len = u32::try_from(header.len()).unwrap_or(u32::MAX);
    writer.write_all(&header_len.to_le_bytes())?;
    writer.write_all(&header)?;
    writer.write_all(&(blob.len() as u64).to_le_bytes())?;
    writer.write_all(blob)?;
    writer.flush()?;
    Ok(())
}

/// Reads one frame (blocking side: the worker); `Ok(None)` at a clean end of input.
pub fn read_blocking<R: Read, H: DeserializeOwned>(
    reader: &mut R,
    max_blob: u64,
) -> Result<Option<Frame<H>>, IsolateError> {
    let mut length = [0u8; 4];
    match reader.read_exact(&mut length) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let header_len = check_header_length(u32::from_le_bytes(length))?;
    let mut header = vec![0; header_len];
    reader.read_exact(&mut header)?;
    let mut length = [0u8; 8];
    reader.read_exact(&mut length)?;
    let blob_len = check_blob_length(u64::from_le_bytes(length), max_blob)?;
    let mut blob = Vec::new();
    let read = reader.take(blob_len as u64).read_to_end(&mut blob)?;
    if read != blob_len {
        return Err(IsolateError::Io(io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(Some(Frame {
        header: decode_header(&header)?,
        blob,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_survives_the_round_trip() {
        let mut wire = Vec::new();
        write_blocking(&mut wire, &("plan", 3u32), b"%PDF-1.7").expect("write");
        let frame: Frame<(String, u32)> = read_blocking(&mut wire.as_slice(), 100)
            .expect("read")
            .expect("a frame");
        assert_eq!(frame.header, ("plan".to_owned(), 3));
        assert_eq!(frame.blob, b"%PDF-1.7");
        assert!(
            read_blocking::<_, (String, u32)>(&mut &wire[wire.len()..], 100)
                .expect("clean end")
                .is_none()
        );
    }

    #[test]
    fn lengths_over_the_limits_are_refused_before_allocating() {
        let mut wire = Vec::new();
        write_blocking(&mut wire, &"x", &[0; 64]).expect("write");
        let error = read_blocking::<_, String>(&mut wire.as_slice(), 63).expect_err("too long");
        assert!(matches!(error, IsolateError::Protocol(_)), "{error}");
        let mut huge_header = u32::MAX.to_le_bytes().to_vec();
        huge_header.extend_from_slice(&[0; 16]);
        let error =
            read_blocking::<_, String>(&mut huge_header.as_slice(), 10).expect_err("header");
        assert!(matches!(error, IsolateError::Protocol(_)), "{error}");
    }

    #[test]
    fn a_truncated_blob_is_an_error_not_a_short_answer() {
        let mut wire = Vec::new();
        write_blocking(&mut wire, &"x", &[7; 32]).expect("write");
        wire.truncate(wire.len() - 5);
        assert!(read_blocking::<_, String>(&mut wire.as_slice(), 100).is_err());
    }
}
