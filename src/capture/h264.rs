//! H.264 through OpenH264 (built from source by the openh264 crate: no system library),
//! for every source that carries it: a recorded game's MP4 file and an RTSP camera.
//!
//! Both sources feed access units in Annex B form (start codes before each NAL unit) to
//! one [`Decoder`]. Every unit must be decoded, since a P-picture is built on the one
//! before it, but only the picture the pipeline will take is worth converting to RGB:
//! the conversion costs about as much as the decode at 1080p, so a detector slower than
//! the camera should not pay for pictures it skips.
//!
//! The [`Encoder`] films synthetic games for `aide bench stream` and the tests (an RTSP
//! clip, an MP4 file) as a phone or an IP camera would: baseline profile, a key picture
//! every so often and P-pictures between.

use image::RgbImage;
use openh264::OpenH264API;
use openh264::encoder::{EncoderConfig, FrameRate, IntraFramePeriod, QpRange, RateControlMode};
use openh264::formats::{RgbSliceU8, YUVBuffer, YUVSource};

/// An H.264 decoder that hands out pictures as RGB on request.
pub struct Decoder {
    decoder: openh264::decoder::Decoder,
}

impl Decoder {
    pub fn new() -> Result<Self, String> {
        let decoder = openh264::decoder::Decoder::with_api_config(
            OpenH264API::from_source(),
            openh264::decoder::DecoderConfig::new(),
        )
        .map_err(|e| format!("the H.264 decoder: {e}"))?;
        Ok(Self { decoder })
    }

    /// Decode one access unit (or parameter sets) in Annex B form. The picture it
    /// completes, if any, is returned as RGB when `convert`, and dropped otherwise;
    /// `Ok(None)` either way when it completed none.
    pub fn decode(&mut self, annex_b: &[u8], convert: bool) -> Result<Option<RgbImage>, String> {
        let picture = self.decoder.decode(annex_b).map_err(|e| e.to_string())?;
        Ok(picture.filter(|_| convert).map(|yuv| {
            let (w, h) = yuv.dimensions();
            let mut rgb = vec![0u8; w * h * 3];
            yuv.write_rgb8(&mut rgb);
            RgbImage::from_raw(w as u32, h as u32, rgb).expect("w*h*3 bytes")
        }))
    }
}

/// One encoded picture: its NAL units with start codes, and whether it is a key picture
/// (an IDR, which a decoder can start from: the encoder puts the parameter sets before
/// each one).
#[derive(Debug, Clone)]
pub struct AccessUnit {
    pub annex_b: Vec<u8>,
    pub key: bool,
}

impl AccessUnit {
    /// The NAL units without their start codes.
    pub fn nal_units(&self) -> impl Iterator<Item = &[u8]> {
        openh264::nal_units(&self.annex_b).map(|nal| {
            let start = nal.iter().position(|b| *b == 1).map_or(0, |i| i + 1);
            &nal[start..]
        })
    }
}

/// An H.264 encoder for synthetic footage.
pub struct Encoder {
    encoder: openh264::encoder::Encoder,
}

impl Encoder {
    /// `fps` frames a second, a key picture every `key_every` pictures. No rate control:
    /// every picture is kept, at the quality of a QP of 8 to 12 (near lossless, so that
    /// the codec's own error stays small beside the detector's).
    pub fn new(fps: f64, key_every: u32) -> Result<Self, String> {
        let config = EncoderConfig::new()
            .rate_control_mode(RateControlMode::Off)
            .max_frame_rate(FrameRate::from_hz(fps as f32))
            .qp(QpRange::new(8, 12))
            .intra_frame_period(IntraFramePeriod::from_num_frames(key_every))
            .skip_frames(false);
        let encoder =
            openh264::encoder::Encoder::with_api_config(OpenH264API::from_source(), config)
                .map_err(|e| format!("the H.264 encoder: {e}"))?;
        Ok(Self { encoder })
    }

    /// Make the next picture a key picture.
    pub fn force_key(&mut self) {
        self.encoder.force_intra_frame();
    }

    /// Encode the next picture (even width and height).
    pub fn encode(&mut self, image: &RgbImage) -> Result<AccessUnit, String> {
        let (w, h) = image.dimensions();
        let yuv =
            YUVBuffer::from_rgb_source(RgbSliceU8::new(image.as_raw(), (w as usize, h as usize)));
        let stream = self.encoder.encode(&yuv).map_err(|e| e.to_string())?;
        let key = matches!(
            stream.frame_type(),
            openh264::encoder::FrameType::IDR | openh264::encoder::FrameType::I
        );
        Ok(AccessUnit {
            annex_b: stream.to_vec(),
            key,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture encoded and decoded comes back close to what went in, key pictures come
    /// at the set period, and a picture not converted is still decoded (the next P
    /// picture, built on it, is right).
    #[test]
    fn pictures_survive_the_codec_and_skipped_ones_still_count() {
        let grey = |level: u8| RgbImage::from_pixel(64, 48, image::Rgb([level; 3]));
        let mut encoder = Encoder::new(10.0, 4).unwrap();
        let units: Vec<_> = (0..8u8)
            .map(|i| encoder.encode(&grey(20 * i)).unwrap())
            .collect();
        let keys: Vec<bool> = units.iter().map(|u| u.key).collect();
        assert_eq!(keys, [true, false, false, false, true, false, false, false]);
        let first: Vec<u8> = units[0].nal_units().map(|nal| nal[0] & 0x1f).collect();
        assert_eq!(&first[..2], [7, 8], "SPS and PPS before the key picture");

        let mut decoder = Decoder::new().unwrap();
        for (i, unit) in units.iter().enumerate() {
            let convert = i % 3 == 2;
            let picture = decoder.decode(&unit.annex_b, convert).unwrap();
            assert_eq!(picture.is_some(), convert, "picture {i}");
            if let Some(picture) = picture {
                let level = i32::from(picture.get_pixel(32, 24)[0]);
                assert!((level - 20 * i as i32).abs() <= 3, "{i}: {level}");
            }
        }
    }
}
