//! The limits sota states (docs/SECURITY.md, "Limits"): a matrix over
//! 16 MiB is refused with a located error, a report with many problems
//! renders the first 100 and counts the rest, and problems on one very
//! long line render as short excerpts (miette used to panic there).

use crate::harness::Sota;

#[test]
fn a_matrix_over_16_mib_is_refused_where_the_limit_is_crossed() {
    let mut text = String::from("[project]\nname = \"p\"\n");
    let comment = format!("# {}\n", "x".repeat(1022));
    while text.len() <= 16 << 20 {
        text.push_str(&comment);
    }
    let p = Sota::new().file("sota.toml", &text);
    let run = p.run(&["list"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("sota::too-large"), "{}", run.stderr);
    assert!(run.stderr.contains("16 MiB"), "{}", run.stderr);
    // Located: the line holding the first byte past 16 MiB.
    let line = text[..16 << 20].matches('\n').count() + 1;
    let col = (16 << 20) - text[..16 << 20].rfind('\n').unwrap();
    let at = format!("sota.toml:{line}:{col}");
    assert!(run.stderr.contains(&at), "{at} in {}", run.stderr);
    assert!(
        run.stderr.len() < 10_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
    let json = p.run(&["list", "--json"]).json();
    assert_eq!(json["problems"][0]["code"], "too-large");
}

#[test]
fn many_problems_render_the_first_hundred_and_count_the_rest() {
    let mut text = String::from("[project]\nname = \"p\"\n");
    for i in 0..150 {
        text.push_str(&format!(
            "\n[[op]]\nslug = \"op-{i}\"\ntitle = \"t\"\nfiles = [\"k/{i}/\"]\ncolour = 1\n"
        ));
    }
    let p = Sota::new().file("sota.toml", &text);
    let json = p.run(&["list", "--json"]).json();
    let n = json["problems"].as_array().unwrap().len();
    assert!(n >= 150, "every problem is in the JSON, {n}");
    let run = p.run(&["list"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr.matches("  × sota.toml:").count(), 100);
    let more = format!("… and {} more problems", n - 100);
    assert!(run.stderr.contains(&more), "{more} in {}", run.stderr);
    assert!(
        run.stderr.contains(&format!("has {n} problems")),
        "{}",
        run.stderr
    );
}

#[test]
fn a_duplicate_slug_70000_columns_away_renders_without_a_panic() {
    let pad = " ".repeat(70_000);
    let text = format!(
        "op = [{{ slug = \"a\", title = \"t\", files = [\"x/\"] }},{pad}{{ slug = \"a\", title = \"t\", files = [\"y/\"] }}]\n[project]\nname = \"p\"\n"
    );
    let run = Sota::new().file("sota.toml", &text).run(&["list"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(
        run.stderr.contains("sota::duplicate-slug"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("sota.toml:1:70"), "{}", run.stderr);
    assert!(
        run.stderr.len() < 5_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
}
