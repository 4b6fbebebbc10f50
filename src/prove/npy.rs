//! The `.npy` header (NumPy format versions 1–3): magic, header length, and
//! the Python dict literal `{'descr': '<f4', 'fortran_order': False,
//! 'shape': (3, 4), }`. The header is untrusted: every length is checked
//! against the file before it is used, and nothing is allocated from a
//! size the file claims.

use super::dtype::{ByteOrder, DType};
use super::meta::{element_count, Layout, TensorMeta};

const MAGIC: &[u8] = b"\x93NUMPY";

/// The largest header read: NumPy's own default limit
/// (`numpy.lib.format._MAX_HEADER_SIZE`, the `max_header_size` of
/// `read_array_header_*`), past which `np.load` refuses a file as unsafe.
pub const MAX_HEADER: usize = 10_000;

/// Whether these bytes start like an `.npy` file.
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Parse the header of an `.npy` file of `bytes` (the whole file).
pub fn parse(bytes: &[u8]) -> Result<TensorMeta, String> {
    if !sniff(bytes) {
        return Err("not an .npy file: it does not start with \\x93NUMPY".into());
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(v) => (v[0], v[1]),
        None => return Err("the .npy preamble is cut short (no version bytes)".into()),
    };
    let (len_bytes, utf8) = match major {
        1 => (2usize, false),
        2 => (4, false),
        3 => (4, true),
        _ => {
            return Err(format!(
                "unsupported .npy format version {major}.{minor} (sota reads 1.0, 2.0 and 3.0)"
            ))
        }
    };
    let Some(len_field) = bytes.get(8..8 + len_bytes) else {
        return Err("the .npy preamble is cut short (no header length)".into());
    };
    let header_len = if len_bytes == 2 {
        u16::from_le_bytes([len_field[0], len_field[1]]) as usize
    } else {
        u32::from_le_bytes(len_field.try_into().unwrap()) as usize
    };
    if header_len > MAX_HEADER {
        return Err(format!(
            "the .npy header claims {header_len} bytes, more than NumPy's own limit of {MAX_HEADER} (numpy.lib.format's max_header_size); sota does not parse it"
        ));
    }
    let start = 8 + len_bytes;
    let data_offset = start + header_len;
    if data_offset > bytes.len() {
        return Err(format!(
            "the header claims {header_len} bytes but the file holds only {} after the preamble",
            bytes.len() - start
        ));
    }
    let header = &bytes[start..data_offset];
    let text = if utf8 {
        std::str::from_utf8(header).map_err(|_| "the .npy v3 header is not UTF-8".to_string())?
    } else {
        if !header.is_ascii() {
            return Err("the .npy header is not ASCII".into());
        }
        std::str::from_utf8(header).unwrap()
    };
    let dict = Literal::new(text).dict()?;
    let descr = dict.descr.ok_or("the header has no 'descr' key")?;
    let fortran = dict
        .fortran
        .ok_or("the header has no 'fortran_order' key")?;
    let shape = dict.shape.ok_or("the header has no 'shape' key")?;
    let (dtype, order) = parse_descr(&descr)?;
    let count = element_count(&shape)
        .ok_or_else(|| format!("the shape {shape:?} overflows the element count"))?;
    let nbytes = count
        .checked_mul(dtype.size())
        .ok_or_else(|| format!("the shape {shape:?} overflows the byte count"))?;
    let available = bytes.len() - data_offset;
    if nbytes != available {
        return Err(format!(
            "sizes do not add up: shape {shape:?} of {} needs {nbytes} data bytes, the file has {available} after the header",
            dtype.name()
        ));
    }
    Ok(TensorMeta {
        name: String::new(),
        dtype,
        order,
        shape,
        layout: if fortran { Layout::F } else { Layout::C },
        offset: data_offset,
        nbytes,
    })
}

/// `'<f4'` → (F32, Little).
fn parse_descr(descr: &str) -> Result<(DType, ByteOrder), String> {
    let unsupported = || {
        format!(
            "unsupported dtype '{descr}': sota reads bool, signed and unsigned integers of 1–8 bytes and floats of 2, 4 and 8 bytes (bfloat16 and float8 through .safetensors or --dtype)"
        )
    };
    let mut chars = descr.chars();
    let (order, rest) = match chars.next() {
        Some('<') => (ByteOrder::Little, chars.as_str()),
        Some('>') => (ByteOrder::Big, chars.as_str()),
        Some('|') => (ByteOrder::Little, chars.as_str()),
        Some('=') => (native(), chars.as_str()),
        _ => (native(), descr),
    };
    let dtype = match rest {
        "b1" | "?" => DType::Bool,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "f2" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        _ => return Err(unsupported()),
    };
    if descr.starts_with('|') && dtype.size() > 1 {
        return Err(format!(
            "dtype '{descr}' has no byte order ('|') but is {} bytes wide",
            dtype.size()
        ));
    }
    Ok((dtype, order))
}

fn native() -> ByteOrder {
    if cfg!(target_endian = "big") {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    }
}

#[derive(Default)]
struct Dict {
    descr: Option<String>,
    fortran: Option<bool>,
    shape: Option<Vec<usize>>,
}

/// A strict reader of the Python literal subset NumPy writes.
struct Literal<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Literal<'a> {
    fn new(text: &'a str) -> Self {
        Literal {
            s: text.as_bytes(),
            i: 0,
        }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", c as char)))
        }
    }

    fn error(&self, what: &str) -> String {
        let shown: String = String::from_utf8_lossy(self.s)
            .trim_end()
            .chars()
            .take(120)
            .collect();
        format!(
            "malformed .npy header at byte {}: {what} in `{shown}`",
            self.i
        )
    }

    fn string(&mut self) -> Result<String, String> {
        let q = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(self.error("expected a quoted string")),
        };
        self.i += 1;
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i] != q {
            if self.s[self.i] == b'\\' {
                return Err(self.error("escapes are not supported in header strings"));
            }
            self.i += 1;
        }
        if self.i >= self.s.len() {
            return Err(self.error("unterminated string"));
        }
        let out = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.i += 1;
        Ok(out)
    }

    fn word(&mut self) -> &'a [u8] {
        self.ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        &self.s[start..self.i]
    }

    fn boolean(&mut self) -> Result<bool, String> {
        match self.word() {
            b"True" => Ok(true),
            b"False" => Ok(false),
            _ => Err(self.error("expected True or False")),
        }
    }

    fn shape(&mut self) -> Result<Vec<usize>, String> {
        if self.peek() == Some(b'[') {
            return Err(self.error("the shape must be a tuple"));
        }
        self.expect(b'(')?;
        let mut dims = Vec::new();
        loop {
            if self.peek() == Some(b')') {
                self.i += 1;
                return Ok(dims);
            }
            if dims.len() >= 64 {
                return Err(self.error("more than 64 dimensions"));
            }
            let w = self.word();
            let digits = w.strip_suffix(b"L").unwrap_or(w);
            if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                return Err(self.error("expected a non-negative integer dimension"));
            }
            let text = std::str::from_utf8(digits).unwrap();
            let d: usize = text
                .parse()
                .map_err(|_| self.error(&format!("dimension {text} overflows")))?;
            dims.push(d);
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b')') => {}
                _ => return Err(self.error("expected `,` or `)` in the shape")),
            }
        }
    }

    fn dict(mut self) -> Result<Dict, String> {
        let mut d = Dict::default();
        self.expect(b'{')?;
        loop {
            if self.peek() == Some(b'}') {
                self.i += 1;
                break;
            }
            let key = self.string()?;
            self.expect(b':')?;
            match key.as_str() {
                "descr" => {
                    if self.peek() == Some(b'[') {
                        return Err(
                            "structured (record) dtypes are not supported: save one plain numeric array per file".into(),
                        );
                    }
                    d.descr = Some(self.string()?);
                }
                "fortran_order" => d.fortran = Some(self.boolean()?),
                "shape" => d.shape = Some(self.shape()?),
                other => return Err(self.error(&format!("unknown key '{other}'"))),
            }
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {}
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
        if self.peek().is_some() {
            return Err(self.error("trailing text after the dict"));
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(header: &str, data: &[u8]) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.extend([1, 0]);
        v.extend((header.len() as u16).to_le_bytes());
        v.extend(header.as_bytes());
        v.extend(data);
        v
    }

    #[test]
    fn reads_a_v1_header() {
        let f = npy(
            "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 1L), }   \n",
            &[0, 1, 0, 2],
        );
        let m = parse(&f).unwrap();
        assert_eq!(
            (m.dtype, m.order, m.layout),
            (DType::I16, ByteOrder::Big, Layout::F)
        );
        assert_eq!(m.shape, vec![2, 1]);
        assert_eq!(m.nbytes, 4);
    }

    #[test]
    fn scalar_and_empty_shapes() {
        let f = npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': ()}\n",
            &[0; 8],
        );
        assert_eq!(parse(&f).unwrap().shape, Vec::<usize>::new());
        let f = npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3)}\n",
            &[],
        );
        assert_eq!(parse(&f).unwrap().nbytes, 0);
    }

    #[test]
    fn lying_headers_are_errors() {
        let cases = [
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                &[0; 8],
            ),
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615, 2), }",
                &[],
            ),
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                &[],
            ),
            npy(
                "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                &[0; 8],
            ),
            npy(
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                &[0; 4],
            ),
            npy("{'descr': '<f4', 'fortran_order': False, }", &[0; 4]),
            npy(
                "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }",
                &[0; 4],
            ),
            npy(
                "{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }",
                &[0; 4],
            ),
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
                &[0; 4],
            ),
        ];
        for (i, f) in cases.iter().enumerate() {
            assert!(parse(f).is_err(), "case {i} should fail");
        }
        let mut huge = MAGIC.to_vec();
        huge.extend([2, 0]);
        huge.extend(u32::MAX.to_le_bytes());
        assert!(parse(&huge).unwrap_err().contains("claims"));
        assert!(parse(b"\x93NUMPY").is_err());
    }
}
