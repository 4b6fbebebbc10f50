//! Element types of the tensor formats `sota prove` reads, their names in
//! each format, how one element decodes to f64 (exactly: every supported
//! type is a subset of f64 except 64-bit integers beyond 2^53), and
//! torch.testing's default tolerances per type.

use std::fmt;
use std::sync::OnceLock;

/// A supported element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F64,
    F32,
    F16,
    BF16,
    /// OCP FP8 E4M3 "fn": bias 7, no infinity, one NaN pattern per sign.
    F8E4M3,
    /// OCP FP8 E5M2: IEEE-like, bias 15, with infinities and NaNs.
    F8E5M2,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
}

/// Byte order of multi-byte elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

impl DType {
    pub const ALL: [DType; 15] = [
        DType::F64,
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::F8E4M3,
        DType::F8E5M2,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::Bool,
    ];

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 | DType::U64 => 8,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F8E4M3 | DType::F8E5M2 | DType::I8 | DType::U8 | DType::Bool => 1,
        }
    }

    /// The canonical name (as printed and accepted by `--dtype`).
    pub fn name(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F8E4M3 => "f8_e4m3",
            DType::F8E5M2 => "f8_e5m2",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::Bool => "bool",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F64 | DType::F32 | DType::F16 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2
        )
    }

    /// The safetensors header name of this type.
    pub fn safetensors_name(self) -> &'static str {
        match self {
            DType::F64 => "F64",
            DType::F32 => "F32",
            DType::F16 => "F16",
            DType::BF16 => "BF16",
            DType::F8E4M3 => "F8_E4M3",
            DType::F8E5M2 => "F8_E5M2",
            DType::I8 => "I8",
            DType::I16 => "I16",
            DType::I32 => "I32",
            DType::I64 => "I64",
            DType::U8 => "U8",
            DType::U16 => "U16",
            DType::U32 => "U32",
            DType::U64 => "U64",
            DType::Bool => "BOOL",
        }
    }

    /// Parse a safetensors dtype name (`F32`, `BF16`, `F8_E4M3`, …).
    pub fn from_safetensors(name: &str) -> Option<DType> {
        DType::ALL
            .into_iter()
            .find(|d| d.safetensors_name() == name)
    }

    /// Parse a user-given type name: canonical (`f32`), safetensors
    /// (`F32`), numpy/torch (`float32`, `bfloat16`, `float8_e4m3fn`).
    pub fn parse(name: &str) -> Option<DType> {
        let lower = name.trim().to_ascii_lowercase();
        let d = match lower.as_str() {
            "f64" | "float64" | "double" => DType::F64,
            "f32" | "float32" | "float" => DType::F32,
            "f16" | "float16" | "half" => DType::F16,
            "bf16" | "bfloat16" => DType::BF16,
            "f8_e4m3" | "f8e4m3" | "float8_e4m3fn" | "e4m3" => DType::F8E4M3,
            "f8_e5m2" | "f8e5m2" | "float8_e5m2" | "e5m2" => DType::F8E5M2,
            "i8" | "int8" => DType::I8,
            "i16" | "int16" => DType::I16,
            "i32" | "int32" => DType::I32,
            "i64" | "int64" => DType::I64,
            "u8" | "uint8" => DType::U8,
            "u16" | "uint16" => DType::U16,
            "u32" | "uint32" => DType::U32,
            "u64" | "uint64" => DType::U64,
            "bool" => DType::Bool,
            _ => return None,
        };
        Some(d)
    }

    /// torch.testing.assert_close's default `(rtol, atol)` for this type
    /// (torch/testing/_comparison.py `_DTYPE_PRECISIONS`; every type not in
    /// that table, integers, bool and float8 included, gets `(0, 0)`).
    pub fn torch_default_tolerances(self) -> (f64, f64) {
        match self {
            DType::F16 => (1e-3, 1e-5),
            DType::BF16 => (1.6e-2, 1e-5),
            DType::F32 => (1.3e-6, 1e-5),
            DType::F64 => (1e-7, 1e-7),
            _ => (0.0, 0.0),
        }
    }

    /// The allclose tolerances `(rtol, atol)` a check that leaves them out
    /// takes for a candidate of this type: torch.testing's where it has
    /// one; for the float8 types, which torch.testing's table lacks, sota's
    /// own: rtol one unit in the last place at 1 (2^-3 for e4m3, 2^-2 for
    /// e5m2) and atol the smallest subnormal (2^-9, 2^-16).
    pub fn default_tolerances(self) -> (f64, f64) {
        match self {
            DType::F8E4M3 => (0.125, 2f64.powi(-9)),
            DType::F8E5M2 => (0.25, 2f64.powi(-16)),
            other => other.torch_default_tolerances(),
        }
    }

    /// The bulk decoder for this type in this byte order.
    pub fn decoder(self, order: ByteOrder) -> Decoder {
        Decoder {
            dtype: self,
            big: order == ByteOrder::Big && self.size() > 1,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Decodes elements of one type and byte order to f64.
#[derive(Clone, Copy, Debug)]
pub struct Decoder {
    pub dtype: DType,
    big: bool,
}

macro_rules! bulk {
    ($bytes:expr, $out:expr, $n:literal, $big:expr, $conv:expr) => {{
        let conv = $conv;
        if $big {
            for (o, c) in $out.iter_mut().zip($bytes.chunks_exact($n)) {
                let mut a: [u8; $n] = c.try_into().unwrap();
                a.reverse();
                *o = conv(a);
            }
        } else {
            for (o, c) in $out.iter_mut().zip($bytes.chunks_exact($n)) {
                *o = conv(c.try_into().unwrap());
            }
        }
    }};
}

impl Decoder {
    /// Decode `out.len()` consecutive elements from `bytes` (which holds at
    /// least that many).
    #[inline(always)]
    pub fn decode_into(&self, bytes: &[u8], out: &mut [f64]) {
        let big = self.big;
        match self.dtype {
            DType::F64 => bulk!(bytes, out, 8, big, f64::from_le_bytes),
            DType::F32 => bulk!(bytes, out, 4, big, |a| f32::from_le_bytes(a) as f64),
            DType::F16 => {
                let t = f16_table();
                bulk!(bytes, out, 2, big, |a| t[u16::from_le_bytes(a) as usize]
                    as f64)
            }
            DType::BF16 => bulk!(bytes, out, 2, big, |a| bf16_to_f64(u16::from_le_bytes(a))),
            DType::F8E4M3 => {
                let t = e4m3_table();
                for (o, &b) in out.iter_mut().zip(bytes) {
                    *o = t[b as usize];
                }
            }
            DType::F8E5M2 => {
                let t = e5m2_table();
                for (o, &b) in out.iter_mut().zip(bytes) {
                    *o = t[b as usize];
                }
            }
            DType::I8 => {
                for (o, &b) in out.iter_mut().zip(bytes) {
                    *o = b as i8 as f64;
                }
            }
            DType::U8 | DType::Bool => {
                for (o, &b) in out.iter_mut().zip(bytes) {
                    *o = b as f64;
                }
            }
            DType::I16 => bulk!(bytes, out, 2, big, |a| i16::from_le_bytes(a) as f64),
            DType::U16 => bulk!(bytes, out, 2, big, |a| u16::from_le_bytes(a) as f64),
            DType::I32 => bulk!(bytes, out, 4, big, |a| i32::from_le_bytes(a) as f64),
            DType::U32 => bulk!(bytes, out, 4, big, |a| u32::from_le_bytes(a) as f64),
            DType::I64 => bulk!(bytes, out, 8, big, |a| i64::from_le_bytes(a) as f64),
            DType::U64 => bulk!(bytes, out, 8, big, |a| u64::from_le_bytes(a) as f64),
        }
    }

    /// Decode the one element that starts at `bytes[0]`.
    pub fn decode_one(&self, bytes: &[u8]) -> f64 {
        let mut out = [0.0];
        self.decode_into(&bytes[..self.dtype.size()], &mut out);
        out[0]
    }
}

/// bfloat16 is the top half of an f32.
pub fn bf16_to_f64(bits: u16) -> f64 {
    f32::from_bits(u32::from(bits) << 16) as f64
}

/// A binary float of `exp` exponent bits and `man` mantissa bits (sign in
/// the bit above them), decoded exactly. `ieee`: an all-ones exponent means
/// infinity (mantissa 0) or NaN; otherwise (the OCP "fn" variants) only the
/// all-ones pattern is NaN and there is no infinity.
pub fn minifloat_to_f64(bits: u32, exp: u32, man: u32, ieee: bool) -> f64 {
    let sign = if bits >> (exp + man) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = (bits >> man) & ((1 << exp) - 1);
    let m = bits & ((1 << man) - 1);
    let all_ones = (1 << exp) - 1;
    let bias = (1i32 << (exp - 1)) - 1;
    if e == all_ones {
        if ieee {
            return if m == 0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if m == (1 << man) - 1 {
            return f64::NAN;
        }
    }
    let scale = |p: i32| 2f64.powi(p);
    if e == 0 {
        sign * m as f64 * scale(1 - bias - man as i32)
    } else {
        sign * f64::from((1u32 << man) | m) * scale(e as i32 - bias - man as i32)
    }
}

/// IEEE binary16 → f64.
pub fn f16_to_f64(bits: u16) -> f64 {
    minifloat_to_f64(u32::from(bits), 5, 10, true)
}

fn f16_table() -> &'static [f32; 65536] {
    static T: OnceLock<Box<[f32; 65536]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new([0f32; 65536]);
        for (i, v) in t.iter_mut().enumerate() {
            *v = f16_to_f64(i as u16) as f32;
        }
        t
    })
}

fn e4m3_table() -> &'static [f64; 256] {
    static T: OnceLock<[f64; 256]> = OnceLock::new();
    T.get_or_init(|| std::array::from_fn(|i| minifloat_to_f64(i as u32, 4, 3, false)))
}

fn e5m2_table() -> &'static [f64; 256] {
    static T: OnceLock<[f64; 256]> = OnceLock::new();
    T.get_or_init(|| std::array::from_fn(|i| minifloat_to_f64(i as u32, 5, 2, true)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_known_bit_patterns() {
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
        assert_eq!(f16_to_f64(0x7bff), 65504.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24)); // smallest subnormal
        assert_eq!(f16_to_f64(0x03ff), 1023.0 * 2f64.powi(-24)); // largest subnormal
        assert_eq!(f16_to_f64(0x0400), 2f64.powi(-14)); // smallest normal
        assert_eq!(f16_to_f64(0x3555), 0.333_251_953_125);
        assert_eq!(f16_to_f64(0x7c00), f64::INFINITY);
        assert_eq!(f16_to_f64(0xfc00), f64::NEG_INFINITY);
        assert!(f16_to_f64(0x7e00).is_nan());
        assert!(f16_to_f64(0x8000).is_sign_negative() && f16_to_f64(0x8000) == 0.0);
    }

    #[test]
    fn bf16_known_bit_patterns() {
        assert_eq!(bf16_to_f64(0x3f80), 1.0);
        assert_eq!(bf16_to_f64(0xc040), -3.0);
        assert_eq!(bf16_to_f64(0x7f7f), 3.389_531_389_251_535_5e38); // max finite
        assert_eq!(bf16_to_f64(0x0001), 2f64.powi(-133)); // smallest subnormal
        assert_eq!(bf16_to_f64(0x7f80), f64::INFINITY);
        assert!(bf16_to_f64(0x7fc0).is_nan());
        assert_eq!(bf16_to_f64(0x3eab), 0.333_984_375);
    }

    #[test]
    fn f8_e4m3fn_known_bit_patterns() {
        let d = |b: u32| minifloat_to_f64(b, 4, 3, false);
        assert_eq!(d(0x38), 1.0);
        assert_eq!(d(0x7e), 448.0); // max finite: S.1111.110
        assert_eq!(d(0xfe), -448.0);
        assert_eq!(d(0x01), 2f64.powi(-9)); // smallest subnormal
        assert_eq!(d(0x08), 2f64.powi(-6)); // smallest normal
        assert_eq!(d(0x78), 256.0); // all-ones exponent is still finite
        assert!(d(0x7f).is_nan() && d(0xff).is_nan());
        assert_eq!(d(0x40), 2.0);
        assert_eq!(d(0x80), 0.0);
    }

    #[test]
    fn f8_e5m2_known_bit_patterns() {
        let d = |b: u32| minifloat_to_f64(b, 5, 2, true);
        assert_eq!(d(0x3c), 1.0);
        assert_eq!(d(0x7b), 57344.0); // max finite
        assert_eq!(d(0x01), 2f64.powi(-16)); // smallest subnormal
        assert_eq!(d(0x04), 2f64.powi(-14)); // smallest normal
        assert_eq!(d(0x7c), f64::INFINITY);
        assert_eq!(d(0xfc), f64::NEG_INFINITY);
        assert!(d(0x7d).is_nan() && d(0x7f).is_nan());
        assert_eq!(d(0xc0), -2.0);
    }

    #[test]
    fn bulk_decoding_honours_byte_order() {
        let mut out = [0.0; 2];
        let le = [0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0];
        DType::F32
            .decoder(ByteOrder::Little)
            .decode_into(&le, &mut out);
        assert_eq!(out, [1.0, -2.0]);
        let be = [0x3f, 0x80, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00];
        DType::F32
            .decoder(ByteOrder::Big)
            .decode_into(&be, &mut out);
        assert_eq!(out, [1.0, -2.0]);
        let i16be = [0xff, 0xfe, 0x01, 0x00];
        DType::I16
            .decoder(ByteOrder::Big)
            .decode_into(&i16be, &mut out);
        assert_eq!(out, [-2.0, 256.0]);
        DType::F16
            .decoder(ByteOrder::Little)
            .decode_into(&[0x00, 0x3c, 0x00, 0xfc], &mut out);
        assert_eq!(out, [1.0, f64::NEG_INFINITY]);
    }

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::parse(d.name()), Some(d));
            assert_eq!(DType::from_safetensors(d.safetensors_name()), Some(d));
        }
        assert_eq!(DType::parse("float8_e4m3fn"), Some(DType::F8E4M3));
        assert_eq!(DType::parse("complex64"), None);
    }
}
