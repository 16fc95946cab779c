// examples/record_citation.rs
use hookharness::openai::OpenAiChatGenerator;
use hookharness::record::record;
use hookharness::replay::Replay;
use hookharness::scenario::Scenario;
use my_agent::RequireCitation;
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = OpenAiChatGenerator::builder()
        .base_url("http://127.0.0.1:8080/v1")
        .model("qwen2.5-7b-instruct")
        .build()?;
    let scenario = Scenario::from_path("examples/scenarios/require_citation.yaml".as_ref())?;
    let replay = Replay::new().custom_hook("require_citation", RequireCitation::default());
    let recording = record(&replay, &scenario, Arc::new(model));
    std::fs::write("require_citation.recorded.json", recording.to_json())?;
    Ok(())
}
