//! `aide roll`: throw dice from notation, or roll a combat between two pieces on the table.

use std::path::PathBuf;

use aide::dice::combat::{Combat, Engagement, FirePlan, bombard, daylight};
use aide::dice::{Notation, RollId, Roller};
use aide::rules::pub_battles::{PubBattles, combat, in_field_of_fire};
use aide::rules::{nbc, ohw_hex};
use aide::scenario::{RulesId, Scenario, load_state};
use aide::table::{Piece, Pose, TableState};
use anyhow::{Context, bail};

/// Roll dice: "3d6 hits 4+ -1", "2d6", "d3", "d8", "4d6 dl1". Every roll prints its id;
/// pass it back with --seed (or --replay) to show the same dice again. With --scenario,
/// --state and --combat A B (or --bombard GUN TARGET), roll round 1 of a Pub Battles
/// combat with every modifier the table earns, each with its reason.
#[derive(clap::Args)]
pub struct Args {
    /// Dice notation, e.g. "3d6 hits 4+ -1" (quote it: it has spaces).
    #[arg(required_unless_present_any = ["combat", "bombard"])]
    pub notation: Option<String>,
    /// Replay a roll: its id as printed (r00000000000004d2) or a decimal seed.
    #[arg(long, visible_alias = "replay")]
    pub seed: Option<RollId>,
    /// Scenario file, for --combat and --bombard.
    #[arg(long, requires = "state")]
    pub scenario: Option<PathBuf>,
    /// Table state, for --combat and --bombard.
    #[arg(long, requires = "scenario")]
    pub state: Option<PathBuf>,
    /// ATTACKER DEFENDER: the attacker moved into contact with the defender.
    #[arg(long, num_args = 2, value_names = ["ATTACKER", "DEFENDER"], requires = "scenario", conflicts_with_all = ["notation", "bombard"])]
    pub combat: Option<Vec<String>>,
    /// With --combat: where the attacker began its move, X,Y,HEADING (as `aide move
    /// --to`), so hill cover ("if Attacker moved from lower ground") and the river
    /// crossing are judged from there.
    #[arg(long, value_parser = super::move_piece::parse_pose, requires = "combat")]
    pub attacker_from: Option<Pose>,
    /// GUN TARGET: fresh artillery not in contact fires at a target it sees within 1 foot move.
    #[arg(long, num_args = 2, value_names = ["GUN", "TARGET"], requires = "scenario", conflicts_with = "notation")]
    pub bombard: Option<Vec<String>>,
    /// The night turn: "Sin ataques ni bombardeos" [3.2], so --combat and --bombard refuse.
    #[arg(long)]
    pub night: bool,
    /// Print JSON instead of text for a person.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let mut roller = match args.seed {
        Some(id) => Roller::replay(id),
        None => Roller::from_os()?,
    };
    let table_roll = match (&args.combat, &args.bombard, &args.scenario, &args.state) {
        (Some(pair), _, Some(s), Some(t)) => Some((pair, s, t, false)),
        (_, Some(pair), Some(s), Some(t)) => Some((pair, s, t, true)),
        _ => None,
    };
    if let Some((pair, scenario, state, is_bombardment)) = table_roll {
        daylight(args.night)?;
        let scenario = Scenario::load(scenario)?;
        let table = load_state(&scenario, state)?;
        match scenario.rules {
            RulesId::OhwHex => {
                return roll_ohw_shot(&scenario, &table, pair, &mut roller, args.json);
            }
            RulesId::Nbc => return roll_nbc_fire(&scenario, &table, pair, &mut roller, args.json),
            RulesId::PubBattles32 | RulesId::PubBattles30 | RulesId::PubBattlesQuickStart => {}
        }
        let rules = PubBattles::new(scenario.rules);
        let (a, b) = (
            piece(&table, &pair[0], state)?,
            piece(&table, &pair[1], state)?,
        );
        return if is_bombardment {
            roll_bombardment(&rules, &scenario, &table, a, b, &mut roller, args.json)
        } else {
            roll_combat(
                &rules,
                &scenario,
                &table,
                (a, b, args.attacker_from),
                &mut roller,
                args.json,
            )
        };
    }
    let notation: Notation = args.notation.as_deref().unwrap_or_default().parse()?;
    let report = notation.roll(&mut roller);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{report}");
        println!(
            "replay: aide roll \"{}\" --seed {}",
            report.notation, report.roll_id
        );
    }
    Ok(())
}

fn piece<'t>(
    table: &'t TableState,
    id: &str,
    state: &std::path::Path,
) -> anyhow::Result<&'t Piece> {
    table
        .piece(id)
        .with_context(|| format!("unit {id:?} is not on the table in {}", state.display()))
}

fn print_plans(plans: &[FirePlan]) {
    for p in plans {
        println!(
            "  {} fires {} dice at {}, hits on {}+",
            p.shooter, p.dice, p.target, p.threshold
        );
        for m in &p.modifiers {
            println!("    {:+}  {}", m.value, m.reason);
        }
        for n in &p.notes {
            println!("    note: {n}");
        }
    }
}

/// Round 1 of a combat: the modifiers before the dice, then the dice.
fn roll_combat(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    (attacker, defender, attacker_from): (&Piece, &Piece, Option<Pose>),
    roller: &mut Roller,
    json: bool,
) -> anyhow::Result<()> {
    let engagement = if combat::in_contact(rules, attacker, defender) {
        Engagement::Contact
    } else if combat::edition(rules) == aide::dice::combat::Edition::V30
        && in_field_of_fire(rules, scenario, table, attacker, defender).is_some()
    {
        Engagement::FireFight
    } else {
        bail!(
            "{} and {} are not in contact{}: \"You must be able to move so that the majority of the pieces are in contact\"",
            attacker.id,
            defender.id,
            if combat::edition(rules) == aide::dice::combat::Edition::V30 {
                " nor is the defender in the attacker's field of fire"
            } else {
                ""
            }
        );
    };
    let attacker_facts = combat::fire_facts_from(
        rules,
        scenario,
        table,
        attacker,
        defender,
        true,
        attacker_from,
    );
    let defender_facts = combat::fire_facts_from(
        rules,
        scenario,
        table,
        defender,
        attacker,
        false,
        attacker_from,
    );
    let mut fight = Combat::new(
        combat::edition(rules),
        engagement,
        combat::combatant_on(rules, scenario, table, attacker),
        combat::combatant_on(rules, scenario, table, defender),
    )?;
    let plans = fight.preview(&attacker_facts, &defender_facts)?;
    let round = fight.fire(roller, &attacker_facts, &defender_facts)?;
    if json {
        let out = serde_json::json!({
            "attacker_facts": attacker_facts,
            "defender_facts": defender_facts,
            "plans": plans,
            "round": round,
            "combat": fight,
            "roll_id": roller.id(),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "{} attacks {} ({engagement:?}); before the dice:",
        attacker.id, defender.id
    );
    print_plans(&plans);
    println!("{round}");
    println!("combat now: {:?}", fight.phase);
    println!("replay: --seed {}", roller.id());
    Ok(())
}

/// A bombardment, when [`combat::bombardment`] allows it.
fn roll_bombardment(
    rules: &PubBattles,
    scenario: &Scenario,
    table: &TableState,
    gun: &Piece,
    target: &Piece,
    roller: &mut Roller,
    json: bool,
) -> anyhow::Result<()> {
    let verdict = combat::bombardment(rules, scenario, table, gun, target);
    if !verdict.allowed {
        bail!(
            "{} may not bombard {}: {}",
            gun.id,
            target.id,
            verdict.problems.join("; ")
        );
    }
    let facts = combat::fire_facts(rules, scenario, table, gun, target, true);
    let mut victim = combat::combatant_on(rules, scenario, table, target);
    let volley = bombard(
        roller,
        combat::edition(rules),
        &combat::combatant_on(rules, scenario, table, gun),
        &mut victim,
        facts,
    )?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"verdict": verdict, "volley": volley, "roll_id": roller.id()})
            )?
        );
    } else {
        println!(
            "{} bombards {} at {:.2} in (range {:.2} in)",
            gun.id, target.id, verdict.distance_in, verdict.range_in
        );
        println!("{volley}");
        println!("replay: --seed {}", roller.id());
    }
    Ok(())
}

/// One Hour Wargames: SHOOTER shoots TARGET (`--combat` or `--bombard`), if the table
/// allows the shot: a D3 with its modifiers.
fn roll_ohw_shot(
    scenario: &Scenario,
    table: &TableState,
    pair: &[String],
    roller: &mut Roller,
    json: bool,
) -> anyhow::Result<()> {
    let shot = ohw_hex::dice::shoot_on_table(scenario, table, &pair[0], &pair[1], roller)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&shot)?);
    } else {
        println!(
            "{} shoots {} at {} hex: D3 rolled {}",
            shot.shooter, shot.target, shot.facts.range_hex, shot.result.die
        );
        for (v, why) in &shot.result.modifiers {
            println!("  {v:+}  {why}");
        }
        println!("  hits: {}", shot.result.hits);
        println!("replay: --seed {}", shot.roll_id);
    }
    Ok(())
}

/// NBC: GUN fires at TARGET (`--bombard` or `--combat`), if the table allows it
/// ([`nbc::dice::fire_on_table`]).
fn roll_nbc_fire(
    scenario: &Scenario,
    table: &TableState,
    pair: &[String],
    roller: &mut Roller,
    json: bool,
) -> anyhow::Result<()> {
    let shot = nbc::dice::fire_on_table(scenario, table, &pair[0], &pair[1], roller)?;
    let (fire, result) = (&shot.fire, &shot.result);
    if json {
        println!("{}", serde_json::to_string_pretty(&shot)?);
    } else {
        println!(
            "{} fires at {}, {:.1} cm ({:?}): {} dice, hits on {}+",
            shot.gun,
            shot.target,
            fire.distance_cm,
            result.plan.band,
            result.plan.dice,
            result.plan.hit_on
        );
        for (v, why) in &result.plan.adjustments {
            println!("  {v:+} dice  {why}");
        }
        println!("  rolled {:?}", result.first);
        if !result.rerolled.is_empty() {
            println!(
                "  misses re-rolled ({}): {:?}",
                fire.reroll_because.join("; "),
                result.rerolled
            );
        }
        println!("  hits: {}", result.hits);
        println!("replay: --seed {}", shot.roll_id);
    }
    Ok(())
}
