// The drill evidence as OSCAL assessment results: one observation per verified drill report, one finding per
// control of the catalogue (history/controls.ts), satisfied when every resource the reports name has a verified PASS
// within the control's period (the rule of `evidence gate`, history/gate.ts).
import { createHash } from 'node:crypto';
import type { Control } from './controls';
import type { DrillEntry } from './drill-index';
import { DAY_MS, evaluateControl, evaluationText, type GivenPeriod } from './control-evaluation';

// The OSCAL release whose models compliance-trestle 5.2.0 validates the document with (scripts/ensure-oscal-validator.js).
export const OSCAL_VERSION = '1.2.1';
/** OSCAL requires an assessment plan to import; none is published, so this names it as a URN (docs/evidence-packs.md). */
export const ASSESSMENT_PLAN_HREF = 'urn:backup-runbooks:oscal:assessment-plan:drill-evidence';
/** The namespace of this tool's own props. */
export const PROP_NS = 'urn:backup-runbooks:oscal';

interface Prop {
  name: string;
  value: string;
  ns?: string;
}
interface Link {
  href: string;
  rel?: string;
  'media-type'?: string;
  text?: string;
}
export interface OscalObservation {
  uuid: string;
  title: string;
  description: string;
  props: Prop[];
  methods: ['TEST'];
  'relevant-evidence': { href: string; description: string; props: Prop[] }[];
  collected: string;
}
export interface OscalFinding {
  uuid: string;
  title: string;
  description: string;
  props: Prop[];
  target: {
    type: 'objective-id';
    'target-id': string;
    title: string;
    status: { state: 'satisfied' | 'not-satisfied' };
    remarks?: string;
  };
  'related-observations'?: { 'observation-uuid': string }[];
  remarks?: string;
}
interface OscalResource {
  uuid: string;
  title: string;
  rlinks: { href: string; 'media-type': string; hashes: { algorithm: 'SHA-256'; value: string }[] }[];
}
export interface OscalAssessmentResults {
  'assessment-results': {
    uuid: string;
    metadata: { title: string; 'last-modified': string; version: string; 'oscal-version': string; links?: Link[] };
    'import-ap': { href: string; remarks: string };
    results: {
      uuid: string;
      title: string;
      description: string;
      start: string;
      end: string;
      'reviewed-controls': {
        description: string;
        'control-selections': { 'include-controls': { 'control-id': string }[] }[];
      };
      observations?: OscalObservation[];
      findings: OscalFinding[];
    }[];
    'back-matter'?: { resources: OscalResource[] };
  };
}

export interface OscalInput {
  /**
   * The index's drills; only those whose seal verifies become observations or count for a control, each linked to its
   * report by the sha256 its verified seal holds.
   */
  drills: readonly DrillEntry[];
  controls: readonly Control[];
  nowMs: number;
  /** One period for every control instead of each control's own (`--within`). */
  within?: GivenPeriod;
  /** This tool's version, as the document's version. */
  version: string;
}

/** A name-based UUID (RFC 4122 version 5, SHA-1): the same content gives the same UUIDs. */
export function uuidV5(name: string, namespace = NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
/** The URL namespace of RFC 4122, applied to this tool's URN. */
const NAMESPACE = uuidV5('urn:backup-runbooks:oscal', '6ba7b811-9dad-11d1-80b4-00c04fd430c8');

/** The drills whose seal and chain verify, as observations list them: each has its report's sha256 from its seal. */
export const verifiedDrills = (drills: readonly DrillEntry[]) =>
  drills.filter((d) => d.seal.status === 'verified' && d.sealedFiles?.json !== undefined);

/** The report file's path, relative to the output directory, as the observations name it. */
export const reportHref = (file: string) => `drill-reports/${file}.json`;

export const objectiveId = (control: Control) => `${control.id}_obj`;

export function oscalAssessmentResults(input: OscalInput): OscalAssessmentResults {
  const verified = verifiedDrills(input.drills);
  const now = new Date(input.nowMs).toISOString();
  const digestOf = (d: DrillEntry) => d.sealedFiles?.json ?? '';

  const resources: OscalResource[] = verified.map((d) => ({
    uuid: uuidV5(`resource:${d.file}:${digestOf(d)}`),
    title: `Drill report ${d.file}.json`,
    rlinks: [
      {
        href: reportHref(d.file),
        'media-type': 'application/json',
        hashes: [{ algorithm: 'SHA-256', value: digestOf(d) }],
      },
    ],
  }));
  const observationOf = new Map<string, string>();
  const observations: OscalObservation[] = verified.map((d, i) => {
    const uuid = uuidV5(`observation:${d.file}:${digestOf(d)}`);
    observationOf.set(d.file, uuid);
    return {
      uuid,
      title: `Restore drill ${d.name}: ${d.verdict}`,
      description:
        `Drill ${d.workflowId} (run ${d.runId}) finished at ${d.finishedAt} with verdict ${d.verdict}: ` +
        `${d.resources.length} resource(s) restored and validated; its seal and chain verify.`,
      props: [
        { name: 'drill-verdict', value: d.verdict, ns: PROP_NS },
        { name: 'workflow-id', value: d.workflowId, ns: PROP_NS },
        { name: 'run-id', value: d.runId, ns: PROP_NS },
        ...d.resources.map((r) => ({ name: 'resource', value: `${r.resourceId}=${r.verdict}`, ns: PROP_NS })),
      ],
      methods: ['TEST'],
      'relevant-evidence': [
        {
          href: `#${resources[i]?.uuid ?? ''}`,
          description: `The sealed drill report ${reportHref(d.file)}, sha256 ${digestOf(d)}.`,
          props: [{ name: 'sha256', value: digestOf(d), ns: PROP_NS }],
        },
      ],
      collected: d.finishedAt,
    };
  });

  const findings = input.controls.map((control) => {
    // The gate's rule over the control's period: history/control-evaluation.ts, shared with `evidence gate --control`.
    const evaluation = evaluateControl(control, input.drills, {
      nowMs: input.nowMs,
      ...(input.within ? { within: input.within } : {}),
    });
    const { period, satisfied, resources: gate } = evaluation;
    const ms = period.ms;
    const related = [
      ...new Set(gate.flatMap((r) => (r.decidedBy ? [observationOf.get(r.decidedBy.file)] : []))),
    ].filter((u): u is string => u !== undefined);
    const why = evaluationText(evaluation, 'the reports name');
    const finding: OscalFinding = {
      uuid: uuidV5(`finding:${control.id}:${satisfied}:${related.join(',')}:${ms}`),
      title: `${control.framework} ${control.source.clause} ${control.title}`,
      description: `${control.asks} Evidence asked: a verified PASS drill of every resource in scope within ${period.text}.`,
      props: [
        { name: 'framework', value: control.framework, ns: PROP_NS },
        { name: 'period-days', value: String(period.days), ns: PROP_NS },
        { name: 'period-basis', value: period.basis, ns: PROP_NS },
        { name: 'reviewer-required', value: String(control.evidence.reviewer), ns: PROP_NS },
      ],
      target: {
        type: 'objective-id',
        'target-id': objectiveId(control),
        title: control.title,
        status: { state: satisfied ? 'satisfied' : 'not-satisfied' },
        remarks: why,
      },
      ...(related.length > 0 ? { 'related-observations': related.map((u) => ({ 'observation-uuid': u })) } : {}),
      remarks: control.evidence.reviewer
        ? `Not shown by the drill reports: ${control.notShown} The control asks for a review of the results: attach it.`
        : `Not shown by the drill reports: ${control.notShown}`,
    };
    return finding;
  });

  const content = [
    ...verified.map((d) => `${d.file}:${digestOf(d)}`),
    ...findings.map((f) => `${f.target['target-id']}:${f.target.status.state}`),
  ].join('|');
  return {
    'assessment-results': {
      uuid: uuidV5(`assessment-results:${content}`),
      metadata: {
        title: 'Restore drill evidence by control',
        'last-modified': now,
        version: input.version,
        'oscal-version': OSCAL_VERSION,
      },
      'import-ap': {
        href: ASSESSMENT_PLAN_HREF,
        remarks: 'No assessment plan is published: the plan is the control catalogue of backup-runbooks.',
      },
      results: [
        {
          uuid: uuidV5(`result:${content}`),
          title: 'Verified restore drills against the control catalogue',
          description:
            'Each observation is a drill report whose seal and chain verify against the keys given; each finding ' +
            'is one control, satisfied when every resource the reports name has a verified PASS within its period.',
          start: earliestStart(input, now),
          end: now,
          'reviewed-controls': {
            description: 'The control catalogue of backup-runbooks (history/controls.ts).',
            'control-selections': [{ 'include-controls': input.controls.map((c) => ({ 'control-id': c.id })) }],
          },
          ...(observations.length > 0 ? { observations } : {}),
          findings,
        },
      ],
      ...(resources.length > 0 ? { 'back-matter': { resources } } : {}),
    },
  };
}

/** The start of the longest period assessed. */
function earliestStart(input: OscalInput, now: string): string {
  const longest = input.within?.ms ?? Math.max(0, ...input.controls.map((c) => c.evidence.within.days * DAY_MS));
  return longest > 0 ? new Date(input.nowMs - longest).toISOString() : now;
}
