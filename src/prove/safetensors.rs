//! The `.safetensors` header: an 8-byte little-endian length, then a JSON
//! object mapping tensor names to `{dtype, shape, data_offsets}` (offsets
//! relative to the byte buffer after the header), plus an optional
//! `__metadata__` map. The header is untrusted: its length is bounded and
//! checked against the file before it is read, every size is computed with
//! overflow checks, and the tensors must tile the buffer exactly (no holes,
//! no overlaps), as the format requires.

use serde_json::Value;

use super::dtype::{ByteOrder, DType};
use super::meta::{element_count, Layout, TensorMeta};

/// The largest header the reference implementation accepts (100 MB).
pub const MAX_HEADER: u64 = 100_000_000;

/// Parse the header of a `.safetensors` file of `bytes` (the whole file).
/// Tensors come back sorted by name.
pub fn parse(bytes: &[u8]) -> Result<Vec<TensorMeta>, String> {
    let Some(len) = bytes.get(..8) else {
        return Err(format!(
            "a .safetensors file starts with an 8-byte header length; this one has {} bytes",
            bytes.len()
        ));
    };
    let n = u64::from_le_bytes(len.try_into().unwrap());
    if n > MAX_HEADER {
        return Err(format!(
            "the header length field says {n} bytes, more than the format's limit of {MAX_HEADER}"
        ));
    }
    let n = n as usize;
    if 8 + n > bytes.len() {
        return Err(format!(
            "the header length field says {n} bytes, but only {} follow it",
            bytes.len() - 8
        ));
    }
    let header = &bytes[8..8 + n];
    let data_len = bytes.len() - 8 - n;
    let obj: serde_json::Map<String, Value> = serde_json::from_slice(header)
        .map_err(|e| format!("the header is not a JSON object: {e}"))?;
    let mut out = Vec::new();
    let mut spans = Vec::new();
    for (name, v) in &obj {
        if name == "__metadata__" {
            if !v.is_object() {
                return Err("`__metadata__` must be an object of strings".into());
            }
            continue;
        }
        let (meta, begin, end) = entry(name, v, data_len, 8 + n)?;
        spans.push((begin, end, name.clone()));
        out.push(meta);
    }
    check_spans(spans, data_len)?;
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The tensors' data spans, sorted, must tile the data exactly: no hole,
/// no overlap, nothing after the last.
fn check_spans(mut spans: Vec<(usize, usize, String)>, data_len: usize) -> Result<(), String> {
    spans.sort();
    let mut at = 0;
    for (begin, end, name) in &spans {
        if *begin != at {
            return Err(format!(
                "tensor `{name}` begins at data offset {begin}, but the previous tensor ends at {at}: the data has {}",
                if *begin < at { "overlapping tensors" } else { "a hole" }
            ));
        }
        at = *end;
    }
    if at != data_len {
        return Err(format!(
            "the tensors cover {at} bytes of data, but the file holds {data_len} after the header"
        ));
    }
    Ok(())
}

/// One header entry: the tensor's metadata and its data span, checked
/// against the data's length (`data_at`: where the data starts in the file).
fn entry(
    name: &str,
    v: &Value,
    data_len: usize,
    data_at: usize,
) -> Result<(TensorMeta, usize, usize), String> {
    let t = v.as_object().ok_or_else(|| {
        format!("tensor `{name}`: expected an object with dtype, shape, data_offsets")
    })?;
    let dtype_name = t
        .get("dtype")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("tensor `{name}`: missing or non-string `dtype`"))?;
    let shape = t
        .get("shape")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("tensor `{name}`: missing or non-array `shape`"))?
        .iter()
        .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| format!("tensor `{name}`: `shape` must hold non-negative integers"))?;
    let offsets = t
        .get("data_offsets")
        .and_then(Value::as_array)
        .filter(|a| a.len() == 2)
        .and_then(|a| {
            Some((
                usize::try_from(a[0].as_u64()?).ok()?,
                usize::try_from(a[1].as_u64()?).ok()?,
            ))
        })
        .ok_or_else(|| format!("tensor `{name}`: `data_offsets` must be [begin, end]"))?;
    let (begin, end) = offsets;
    if begin > end {
        return Err(format!(
            "tensor `{name}`: data_offsets [{begin}, {end}] end before they begin"
        ));
    }
    if end > data_len {
        return Err(format!(
                "tensor `{name}`: data_offsets [{begin}, {end}] run past the end of the data ({data_len} bytes)"
            ));
    }
    let dtype = DType::from_safetensors(dtype_name).ok_or_else(|| {
        format!(
            "tensor `{name}`: unsupported dtype `{dtype_name}` (sota reads {})",
            DType::ALL.map(DType::safetensors_name).join(", ")
        )
    })?;
    let count = element_count(&shape)
        .and_then(|c| c.checked_mul(dtype.size()))
        .ok_or_else(|| format!("tensor `{name}`: shape {shape:?} overflows"))?;
    if count != end - begin {
        return Err(format!(
                "tensor `{name}`: sizes do not add up: shape {shape:?} of {dtype_name} needs {count} bytes, data_offsets [{begin}, {end}] span {}",
                end - begin
            ));
    }
    let meta = TensorMeta {
        name: name.to_owned(),
        dtype,
        order: ByteOrder::Little,
        shape,
        layout: Layout::C,
        offset: data_at + begin,
        nbytes: count,
    };
    Ok((meta, begin, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(header: &str, data: &[u8]) -> Vec<u8> {
        let mut v = (header.len() as u64).to_le_bytes().to_vec();
        v.extend(header.as_bytes());
        v.extend(data);
        v
    }

    #[test]
    fn reads_tensors_in_name_order() {
        let f = st(
            r#"{"b":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"a":{"dtype":"F8_E4M3","shape":[],"data_offsets":[4,5]},"__metadata__":{"k":"v"}}"#,
            &[0; 5],
        );
        let t = parse(&f).unwrap();
        assert_eq!(t[0].name, "a");
        assert_eq!((t[0].dtype, t[0].nbytes), (DType::F8E4M3, 1));
        assert_eq!(t[1].offset, 8 + f.len() - 8 - 5);
    }

    #[test]
    fn lying_headers_are_errors() {
        let cases = [
            st(
                r#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
                &[0; 8],
            ),
            st(
                r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#,
                &[0; 4],
            ),
            st(
                r#"{"a":{"dtype":"F32","shape":[4611686018427387904, 8],"data_offsets":[0,0]}}"#,
                &[],
            ),
            st(
                r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}}"#,
                &[0; 6],
            ),
            st(
                r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
                &[0; 8],
            ),
            st(
                r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
                &[0; 12],
            ),
            st(
                r#"{"a":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}}"#,
                &[0; 8],
            ),
            st(
                r#"{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}"#,
                &[0; 4],
            ),
            st(
                r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}}"#,
                &[0; 8],
            ),
            st(r#"[1, 2]"#, &[]),
            st(r#"{"a": 1"#, &[]),
        ];
        for (i, f) in cases.iter().enumerate() {
            assert!(parse(f).is_err(), "case {i} should fail");
        }
        let mut huge = u64::MAX.to_le_bytes().to_vec();
        huge.extend(b"{}");
        assert!(parse(&huge).unwrap_err().contains("limit"));
        let mut past = 1000u64.to_le_bytes().to_vec();
        past.extend(b"{}");
        assert!(parse(&past).unwrap_err().contains("only 2 follow"));
        assert!(parse(b"abc").is_err());
    }
}
