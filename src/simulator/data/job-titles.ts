/**
 * Job titles composed from a department and a seniority (interface enums), so that a person's title,
 * department and seniority agree, and title filters ("Director AND Marketing") find who they should.
 */
import type { Department, Seniority } from '../../contract/enums.js';
import type { SeededRandom, Weighted } from './seeded-random.js';

interface DepartmentTitles {
  /** The function's name after "Head of", "Vice President of"... */
  readonly areas: readonly string[];
  /** Individual-contributor roles: "Senior X", "Junior X", "X". */
  readonly roles: readonly string[];
  readonly managers: readonly string[];
  readonly chiefs: readonly string[];
}

function titles(areas: string, roles: string, managers: string, chiefs: string): DepartmentTitles {
  const list = (text: string) => Object.freeze(text.split(';').map((item) => item.trim()));
  return Object.freeze({
    areas: list(areas),
    roles: list(roles),
    managers: list(managers),
    chiefs: list(chiefs),
  });
}

/** Titles per department; `;` separates items because some titles hold commas or ampersands. */
const DEPARTMENT_TITLES: Readonly<Record<Department, DepartmentTitles>> = {
  Leadership: titles(
    'Strategy; Business Development',
    'Executive Assistant; Business Analyst; Strategy Associate',
    'General Manager; Branch Manager',
    'Chief Executive Officer; CEO; President & CEO',
  ),
  Engineering: titles(
    'Engineering; Software Engineering; Platform Engineering; Data Engineering',
    'Software Engineer; Backend Engineer; Frontend Engineer; Data Engineer; DevOps Engineer; QA Engineer; Machine Learning Engineer',
    'Engineering Manager; Software Development Manager; QA Manager',
    'Chief Technology Officer; CTO',
  ),
  'Product Management': titles(
    'Product; Product Management; Design',
    'Product Manager; Product Owner; Product Analyst; UX Designer',
    'Group Product Manager; Design Manager',
    'Chief Product Officer; CPO',
  ),
  Sales: titles(
    'Sales; Business Development; Partnerships',
    'Account Executive; Sales Development Representative; Business Development Representative; Account Manager',
    'Sales Manager; Regional Sales Manager; Key Account Manager',
    'Chief Revenue Officer; Chief Sales Officer',
  ),
  Marketing: titles(
    'Marketing; Growth; Demand Generation; Brand',
    'Marketing Specialist; Content Marketer; SEO Specialist; Marketing Analyst',
    'Marketing Manager; Content Marketing Manager; Growth Marketing Manager',
    'Chief Marketing Officer; CMO',
  ),
  'Customer Success': titles(
    'Customer Success; Customer Experience; Support',
    'Customer Success Specialist; Support Engineer; Onboarding Specialist',
    'Customer Success Manager; Support Manager',
    'Chief Customer Officer',
  ),
  Finance: titles(
    'Finance; FP&A; Treasury',
    'Financial Analyst; Treasury Analyst; Investment Analyst',
    'Finance Manager; FP&A Manager',
    'Chief Financial Officer; CFO',
  ),
  Accounting: titles(
    'Accounting; Tax',
    'Accountant; Staff Accountant; Tax Accountant; Auditor',
    'Accounting Manager; Controller; Payroll Manager',
    'Chief Accounting Officer',
  ),
  Legal: titles(
    'Legal; Compliance',
    'Legal Counsel; Paralegal; Compliance Analyst',
    'Legal Manager; Contracts Manager; Compliance Manager',
    'General Counsel; Chief Legal Officer',
  ),
  'Human Resources': titles(
    'People; Human Resources; Talent Acquisition',
    'Recruiter; HR Generalist; Talent Partner; HR Business Partner',
    'HR Manager; Talent Acquisition Manager; People Operations Manager',
    'Chief People Officer; Chief Human Resources Officer',
  ),
  'Information Technology': titles(
    'IT; Information Security; Infrastructure',
    'Systems Administrator; IT Support Specialist; Network Engineer; Security Analyst',
    'IT Manager; Security Operations Manager',
    'Chief Information Officer; Chief Information Security Officer',
  ),
  Operations: titles(
    'Operations; Supply Chain; Procurement',
    'Operations Analyst; Logistics Coordinator; Buyer; Operations Specialist',
    'Operations Manager; Supply Chain Manager; Office Manager',
    'Chief Operating Officer; COO',
  ),
  Education: titles(
    'Learning & Development; Training; Curriculum',
    'Instructor; Trainer; Teacher; Instructional Designer',
    'Training Manager; Program Manager',
    'Chief Learning Officer',
  ),
  Other: titles(
    'Facilities; Administration',
    'Consultant; Advisor; Researcher; Administrative Assistant',
    'Project Manager; Facilities Manager',
    'Chief of Staff',
  ),
};

/** Relative shares of departments among synthetic people. */
export const DEPARTMENT_WEIGHTS: readonly Weighted<Department>[] = [
  ['Engineering', 18],
  ['Sales', 16],
  ['Marketing', 10],
  ['Operations', 8],
  ['Customer Success', 7],
  ['Product Management', 6],
  ['Information Technology', 6],
  ['Finance', 5],
  ['Human Resources', 5],
  ['Leadership', 4],
  ['Accounting', 3],
  ['Legal', 3],
  ['Education', 2],
  ['Other', 6],
];

/** Relative shares of seniorities among synthetic people (the first person of a company is its head). */
export const SENIORITY_WEIGHTS: readonly Weighted<Seniority>[] = [
  ['Entry', 22],
  ['Senior', 24],
  ['Manager', 18],
  ['Director', 10],
  ['Vice President', 5],
  ['CXO', 3],
  ['Owner', 2],
  ['Partner', 1],
  ['Other', 5],
];

/**
 * A title for `department` at `seniority`: "Senior Data Engineer", "Vice President of Sales",
 * "Co-Founder & CTO", "Head of Growth"...
 */
export function composeJobTitle(random: SeededRandom, department: Department, seniority: Seniority): string {
  const t = DEPARTMENT_TITLES[department];
  const area = random.pick(t.areas);
  const role = random.pick(t.roles);
  switch (seniority) {
    case 'Owner': {
      const chief = random.pick(t.chiefs);
      return random.pick(['Founder', 'Co-Founder', 'Owner', `Founder & ${chief}`, `Co-Founder & ${chief}`]);
    }
    case 'CXO':
      return random.pick(t.chiefs);
    case 'Partner':
      return random.pick(['Partner', 'Managing Partner', `Partner, ${area}`]);
    case 'Vice President':
      return random.pick([`Vice President of ${area}`, `VP ${area}`, `SVP, ${area}`]);
    case 'Director':
      return random.pick([`Director of ${area}`, `${area} Director`, `Head of ${area}`]);
    case 'Manager':
      return random.pick(t.managers);
    case 'Senior':
      return random.pick([`Senior ${role}`, `Lead ${role}`, `Principal ${role}`]);
    case 'Entry':
      return random.pick([role, `Junior ${role}`, `Associate ${role}`, `${role} Intern`]);
    case 'Other':
      return random.pick([role, `Freelance ${role}`, `${role} (Contract)`]);
  }
}
