//! `aide cameras`: the webcams this machine has, each with the modes it can send, so a
//! player can pick `--camera N --camera-size WxH --camera-fps F` for `aide serve`.

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[cfg(feature = "camera")]
pub fn run(args: Args) -> anyhow::Result<()> {
    let cameras = aide::capture::camera::list()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&cameras)?);
        return Ok(());
    }
    if cameras.is_empty() {
        println!(
            "no webcam found; a phone's MJPEG stream works too (--camera http://PHONE:8080/video)"
        );
    }
    for camera in &cameras {
        println!(
            "camera {}: {} ({})",
            camera.device, camera.name, camera.description
        );
        if let Some(error) = &camera.error {
            println!("  modes unknown: {error}");
        }
        for mode in &camera.modes {
            println!("  {mode}");
        }
    }
    Ok(())
}

#[cfg(not(feature = "camera"))]
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!(
        "this build reads no webcam: build it with `cargo build --release --features camera` \
         (needs libclang); a phone's MJPEG stream works in any build \
         (aide serve --camera http://PHONE:8080/video)"
    )
}
