//! Browser journeys through the playground (headless Chromium; see `rvlab_e2e`).

use anyhow::ensure;
use rvlab_e2e::page::journey;

#[test]
fn the_page_loads_with_its_regions() {
    journey("load", |page| {
        page.open()?;
        for region in ["editor", "timeline", "controls", "inspector"] {
            page.find(region)?;
        }
        let title = page.script("return document.title")?;
        ensure!(title == "rvlab", "title is {title}");
        ensure!(
            page.count("error-panel")? == 0,
            "the error panel is showing"
        );
        page.screenshot("load")?;
        Ok(())
    });
}
