// The controls that ask for tested backups or recovery, as data: what each standard asks, and which drill evidence
// answers it. `evidence oscal` reports against it (history/oscal.ts); docs/evidence-packs.md shows it as a table.
// Requirements are restated from the standards; where a standard leaves the frequency to the organisation, the period
// here is our choice and says so (`basis: 'chosen'`).

/** How often a control asks for the test: stated by the standard, or chosen here where it leaves it to the entity. */
export interface ControlFrequency {
  days: number;
  basis: 'stated' | 'chosen';
  /** Where the standard states it, or why this period was chosen. */
  note: string;
}

/** What evidence satisfies a control: a verified PASS drill of each resource in scope within the period. */
export interface ControlEvidence {
  /** A drill report whose seal and chain verify, with the resource's result PASS. */
  kind: 'verified-pass-drill';
  /** `all`: every resource the drill reports name (the scope of `evidence gate` without --scope). */
  scope: 'all';
  within: ControlFrequency;
  /** The control asks for the results to be reviewed by someone: a drill report does not show that review. */
  reviewer: boolean;
}

export interface Control {
  /** An OSCAL token: a letter first, then letters, digits, `.`, `-`, `_`. */
  id: string;
  framework: string;
  title: string;
  /** What the control asks, restated. */
  asks: string;
  evidence: ControlEvidence;
  source: { clause: string; reference: string };
  /** What a drill report does not show for it. */
  notShown: string;
}

const chosenYearly = (why: string): ControlFrequency => ({ days: 365, basis: 'chosen', note: why });
const chosenQuarterly = (why: string): ControlFrequency => ({ days: 90, basis: 'chosen', note: why });

export const CONTROLS: readonly Control[] = [
  {
    id: 'iso27001-2022-a.8.13',
    framework: 'ISO/IEC 27001:2022',
    title: 'Information backup',
    asks:
      'Backup copies of information, software and systems are maintained and regularly tested in accordance with ' +
      'the agreed topic-specific policy on backup.',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: chosenQuarterly('the standard says "regularly" and leaves the frequency to the backup policy'),
      reviewer: false,
    },
    source: {
      clause: 'Annex A 8.13',
      reference: 'ISO/IEC 27001:2022, Annex A, control 8.13 (ISO/IEC 27002:2022 8.13)',
    },
    notShown: 'The backup policy and its agreed frequency; resources no drill covered in the period.',
  },
  {
    id: 'iso27001-2022-a.5.30',
    framework: 'ISO/IEC 27001:2022',
    title: 'ICT readiness for business continuity',
    asks:
      'ICT readiness is planned, implemented, maintained and tested based on business continuity objectives and ICT ' +
      'continuity requirements.',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: chosenYearly('the standard states no frequency'),
      reviewer: false,
    },
    source: {
      clause: 'Annex A 5.30',
      reference: 'ISO/IEC 27001:2022, Annex A, control 5.30 (ISO/IEC 27002:2022 5.30)',
    },
    notShown: 'The business continuity objectives, and ICT readiness beyond restoring a resource.',
  },
  {
    id: 'soc2-tsc-a1.3',
    framework: 'SOC 2 (AICPA Trust Services Criteria 2017)',
    title: 'Recovery plan testing',
    asks:
      'The entity tests recovery plan procedures supporting system recovery to meet its objectives; a point of focus ' +
      'is testing the integrity and completeness of backup data.',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: chosenYearly('the criterion states no frequency'),
      reviewer: false,
    },
    source: { clause: 'A1.3', reference: 'AICPA, 2017 Trust Services Criteria (revised points of focus 2022), A1.3' },
    notShown: 'The recovery plan itself, and tests beyond restoring a resource (fail-over, people, communication).',
  },
  {
    id: 'nist-800-53r5-cp-4',
    framework: 'NIST SP 800-53 Rev. 5',
    title: 'Contingency plan testing',
    asks:
      'Test the contingency plan at an organization-defined frequency to determine its effectiveness and readiness, ' +
      'review the test results, and initiate corrective actions if needed.',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: chosenYearly('the frequency is organization-defined'),
      reviewer: true,
    },
    source: { clause: 'CP-4', reference: 'NIST SP 800-53 Rev. 5, CP-4 Contingency Plan Testing' },
    notShown: 'The review of the results and the corrective actions; the plan beyond restoring a resource.',
  },
  {
    id: 'nist-800-53r5-cp-9.1',
    framework: 'NIST SP 800-53 Rev. 5',
    title: 'System backup: testing for reliability and integrity',
    asks: 'Test backup information at an organization-defined frequency to verify media reliability and information integrity.',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: chosenQuarterly('the frequency is organization-defined'),
      reviewer: false,
    },
    source: {
      clause: 'CP-9(1)',
      reference: 'NIST SP 800-53 Rev. 5, CP-9(1) System Backup | Testing for Reliability and Integrity',
    },
    notShown: 'Backups that no drill restored.',
  },
  {
    id: 'dora-art-11',
    framework: 'DORA (Regulation (EU) 2022/2554)',
    title: 'Response and recovery',
    asks:
      'Test the ICT business continuity plans and the ICT response and recovery plans at least yearly, and after ' +
      'substantive changes to ICT systems supporting critical or important functions.',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: { days: 365, basis: 'stated', note: 'Art. 11(6)(a): at least yearly' },
      reviewer: false,
    },
    source: { clause: 'Art. 11', reference: 'Regulation (EU) 2022/2554 (DORA), Article 11, Response and recovery' },
    notShown: 'The plans themselves, tests after substantive changes, and scenarios beyond restoring a resource.',
  },
  {
    id: 'dora-art-12',
    framework: 'DORA (Regulation (EU) 2022/2554)',
    title: 'Backup policies and procedures, restoration and recovery procedures and methods',
    asks:
      'Backup policies and restoration and recovery procedures and methods, with backup systems tested ' +
      'periodically, and recovery time and recovery point objectives for each function.',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: chosenYearly('the article says "periodically"'),
      reviewer: false,
    },
    source: { clause: 'Art. 12', reference: 'Regulation (EU) 2022/2554 (DORA), Article 12' },
    notShown: "Whether the targets match each function's objectives, and the segregation of the systems restored to.",
  },
  {
    id: 'pci-dss-4.0-12.10.2',
    framework: 'PCI DSS v4.0',
    title: 'Incident response plan reviewed and tested',
    asks:
      'At least once every 12 months, the security incident response plan is reviewed, updated as needed, and ' +
      'tested, including all elements of 12.10.1 (among them business recovery and continuity procedures and data ' +
      'backup processes).',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: { days: 365, basis: 'stated', note: 'at least once every 12 months' },
      reviewer: true,
    },
    source: { clause: '12.10.2', reference: 'PCI DSS v4.0, Requirement 12.10.2' },
    notShown: 'The review of the plan and every element of 12.10.1 other than backup and recovery.',
  },
  {
    id: 'hipaa-164.308.a.7.ii.D',
    framework: 'HIPAA Security Rule (45 CFR Part 164)',
    title: 'Testing and revision procedures',
    asks: 'Implement procedures for periodic testing and revision of contingency plans (addressable).',
    evidence: {
      kind: 'verified-pass-drill',
      scope: 'all',
      within: chosenYearly('the rule says "periodic"'),
      reviewer: true,
    },
    source: { clause: '164.308(a)(7)(ii)(D)', reference: '45 CFR 164.308(a)(7)(ii)(D)' },
    notShown: 'The revision of the contingency plan after the tests.',
  },
];
