use super::*;

fn skill(name: &str, description: &str) -> Skill {
    Skill::synthetic(name, description)
}

fn names<'a>(skills: &'a [Skill], hits: &[Hit]) -> Vec<&'a str> {
    hits.iter().map(|h| skills[h.index].name.as_str()).collect()
}

fn catalog() -> Vec<Skill> {
    vec![
        skill("weather", "Current weather for a city: temperature and conditions."),
        skill("pdf-tools", "Extract text and tables from PDF files."),
        skill("github", "Look up GitHub repositories, issues and pull requests."),
        skill(
            "pdftotext",
            "Turn documents into plain words for reading in the terminal.",
        ),
        skill(
            "ImageResize",
            "Make pictures smaller or larger, keeping the aspect ratio.",
        ),
        skill("date-calc", "Days between two dates and which weekday a day falls on."),
        skill(
            "notes",
            "Keep short notes; mentions a date, a pdf and an image now and then.",
        ),
    ]
}

#[test]
fn stems_and_ranks() {
    let skills = catalog();
    let index = SkillIndex::build(&skills);
    assert_eq!(index.search("what's the temperature in Oslo", 3)[0].index, 0);
    assert_eq!(index.search("extracting tables from a pdf", 3)[0].index, 1);
    assert_eq!(index.search("open issues on my repository", 3)[0].index, 2);
    assert!(index.search("zzzz qqqq", 3).is_empty());
    assert!(index.search("", 3).is_empty());
    assert!(
        index.search("the of and to", 3).is_empty(),
        "function words match nothing"
    );
}

#[test]
fn compound_and_camel_case_names_are_found_by_their_words() {
    let skills = catalog();
    let index = SkillIndex::build(&skills);
    // `pdftotext` shares no description word with the query: only its split name can match.
    let hits = index.search("pdf to text", 7);
    assert!(names(&skills, &hits).contains(&"pdftotext"), "{hits:?}");
    assert_eq!(names(&skills, &index.search("resize", 3))[0], "ImageResize");
    // The compound itself still matches whole.
    assert_eq!(names(&skills, &index.search("pdftotext", 3))[0], "pdftotext");
    let unsplit = SkillIndex::with_params(
        &skills,
        Params {
            split_compounds: false,
            ..Params::default()
        },
    );
    assert!(!names(&skills, &unsplit.search("plain text", 7)).is_empty());
    assert!(!names(&skills, &unsplit.search("pdf", 7)).contains(&"pdftotext"));
}

#[test]
fn a_word_in_the_name_outweighs_the_same_word_in_a_description() {
    let skills = catalog();
    let index = SkillIndex::build(&skills);
    // "date" is in `date-calc`'s name and `notes`' description; `date-calc` also says "dates".
    assert_eq!(names(&skills, &index.search("date", 7))[..2], ["date-calc", "notes"]);
    let flat = SkillIndex::with_params(
        &skills,
        Params {
            name_weight: 0.0,
            ..Params::default()
        },
    );
    let weighted = index.score("image").scores;
    let unweighted = flat.score("image").scores;
    assert!(weighted[4] > unweighted[4], "the name field adds to the score");
    assert_eq!(weighted[6], unweighted[6], "description-only matches are unchanged");
}

#[test]
fn short_queries_and_typos_find_the_skill() {
    let skills = catalog();
    let index = SkillIndex::build(&skills);
    assert_eq!(names(&skills, &index.search("weather", 3))[0], "weather");
    assert_eq!(
        names(&skills, &index.search("wether", 3))[0],
        "weather",
        "one edit away"
    );
    assert_eq!(
        names(&skills, &index.search("temprature oslo", 3))[0],
        "weather",
        "two edits, long word"
    );
    assert_eq!(
        names(&skills, &index.search("repos", 3))[0],
        "github",
        "a prefix of a catalog word"
    );
    // Near misses count less than exact matches.
    assert!(index.score("wether").scores[0] < index.score("weather").scores[0]);
    let strict = SkillIndex::with_params(
        &skills,
        Params {
            fuzzy_weight: 0.0,
            ..Params::default()
        },
    );
    assert!(strict.search("wether", 3).is_empty());
}

#[test]
fn a_known_word_is_never_expanded() {
    let skills = vec![
        skill("invoice", "Create invoices for customers."),
        skill("voice", "Record voice memos."),
    ];
    let index = SkillIndex::build(&skills);
    assert_eq!(names(&skills, &index.search("voice", 5)), ["voice"]);
}

#[test]
fn repeated_query_words_count_once() {
    let skills = catalog();
    let index = SkillIndex::build(&skills);
    assert_eq!(
        index.score("weather").scores,
        index.score("weather weather Weather").scores
    );
}

#[test]
fn ties_keep_catalog_order_and_limit_applies() {
    let skills = vec![
        skill("alpha", "Handles widgets."),
        skill("beta", "Handles widgets."),
        skill("gamma", "Handles widgets."),
    ];
    let index = SkillIndex::build(&skills);
    let hits = index.search("widgets", 2);
    assert_eq!(hits.iter().map(|h| h.index).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(hits[0].score, hits[1].score);
}

#[test]
fn empty_catalog_is_fine() {
    let index = SkillIndex::build(&[]);
    assert!(index.search("anything", 5).is_empty());
}

#[test]
fn near_miss_lookups_are_capped_per_query() {
    let skills = catalog();
    let index = SkillIndex::build(&skills);
    let noise: Vec<String> = (0..MAX_NEAR_MISS_WORDS).map(|i| format!("zq{i}xyzzy")).collect();
    let early = format!("wether {}", noise.join(" "));
    let late = format!("{} wether", noise.join(" "));
    assert_eq!(names(&skills, &index.search(&early, 3)), ["weather"]);
    assert!(index.search(&late, 3).is_empty(), "the budget is spent before the typo");
    // Exact words are never subject to the cap.
    assert_eq!(
        names(&skills, &index.search(&format!("{late} weather"), 3)),
        ["weather"]
    );
}

#[test]
fn a_derived_word_finds_its_root_at_near_miss_weight() {
    let skills = vec![
        skill("house-renting", "Rent a flat or a house."),
        skill("car-dealer", "Buy a used car."),
    ];
    let index = SkillIndex::build(&skills);
    // Snowball leaves "rental" whole; the catalog only knows the stem "rent".
    assert_eq!(names(&skills, &index.search("rental flat", 2))[0], "house-renting");
    let rental = index.score("rental").scores[0];
    assert!(
        rental > 0.0 && rental < index.score("rent").scores[0],
        "a near miss counts less"
    );
    let strict = SkillIndex::with_params(
        &skills,
        Params {
            stem_prefix: false,
            ..Params::default()
        },
    );
    assert_eq!(strict.score("rental").scores[0], 0.0);
    // A root more than three letters shorter is a different word.
    assert_eq!(index.score("carpentry").scores[1], 0.0);
}

#[test]
fn a_name_word_that_begins_a_request_word_is_an_abbreviation() {
    let skills = vec![
        skill("RepoTool", "Discover projects on GitHub and summarise them."),
        skill("weather", "Forecasts for a city; take a note of them."),
    ];
    let index = SkillIndex::build(&skills);
    // "repo" is in a name: "repositories" finds it, at near-miss weight.
    let hits = index.search("java repositories for web development", 2);
    assert_eq!(names(&skills, &hits), ["RepoTool"]);
    let repositories = index.score("repositories").scores[0];
    assert!(repositories > 0.0 && repositories < index.score("repo").scores[0]);
    // "note" is only in a description: a word more than three letters longer is another word.
    assert_eq!(index.score("noteworthy").scores[1], 0.0);
    let strict = SkillIndex::with_params(
        &skills,
        Params {
            stem_prefix: false,
            ..Params::default()
        },
    );
    assert_eq!(strict.score("repositories").scores[0], 0.0);
}
