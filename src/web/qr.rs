//! The address phones open: the machine's LAN address, shown as text and as a QR code
//! in the terminal and on the page.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};

use qrcode::QrCode;
use qrcode::render::{svg, unicode};

/// The address a phone on the same network reaches `bound` at. A server bound to every
/// interface (0.0.0.0) is reached at the interface the default route leaves from: a UDP
/// socket "connected" to a documentation address (no packet is sent) reveals it.
pub fn lan_url(bound: SocketAddr) -> String {
    let ip = if bound.ip().is_unspecified() {
        UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0))
            .and_then(|s| {
                s.connect((Ipv4Addr::new(192, 0, 2, 1), 80))?;
                s.local_addr()
            })
            .map(|a| a.ip())
            .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
    } else {
        bound.ip()
    };
    format!("http://{}/", SocketAddr::new(ip, bound.port()))
}

/// The QR code as text for a terminal (two modules per character row).
pub fn terminal(url: &str) -> String {
    match QrCode::new(url.as_bytes()) {
        Ok(code) => code
            .render::<unicode::Dense1x2>()
            .dark_color(unicode::Dense1x2::Light)
            .light_color(unicode::Dense1x2::Dark)
            .build(),
        Err(e) => format!("(no QR code: {e})"),
    }
}

/// The QR code as an SVG image for the page.
pub fn svg(url: &str) -> String {
    match QrCode::new(url.as_bytes()) {
        Ok(code) => code
            .render::<svg::Color>()
            .min_dimensions(160, 160)
            .quiet_zone(true)
            .build(),
        Err(_) => String::from(r#"<svg xmlns="http://www.w3.org/2000/svg"/>"#),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_bound_to_one_address_is_reached_there() {
        let url = lan_url("192.168.1.20:8080".parse().unwrap());
        assert_eq!(url, "http://192.168.1.20:8080/");
    }

    #[test]
    fn qr_code_has_the_version_an_url_needs() {
        // "http://192.168.100.200:8080/" is 28 bytes: version 2 (25 modules) at level M
        // holds up to 26 bytes, so it takes version 3: 29 modules, 15 text rows.
        let text = terminal("http://192.168.100.200:8080/");
        let rows = text.lines().count();
        assert_eq!(rows, (29_usize + 8).div_ceil(2));
        assert!(svg("http://192.168.100.200:8080/").starts_with("<?xml"));
    }
}
