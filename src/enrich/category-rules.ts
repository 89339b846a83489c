/**
 * The title rules behind category.ts, as data: one line per rule, grouped by family.
 *
 * Families and what each holds: /work/shared/design/category-families.md (spec: Controlled
 * vocabularies › category). Patterns are regular-expression sources matched, with word boundaries
 * added around them, against a folded title: lower case, accents stripped (ø→o, æ→ae, ß→ss), German
 * gender suffixes and "(m/w/d)" markers removed. A pattern starting `\w*` also matches inside
 * compound words ("frontendutvikler", "Softwareentwickler", "Krankenpfleger").
 *
 * Each rule has a kind:
 * - `role`: a job noun or noun phrase that says what the person is ("software engineer", "nurse",
 *   "account executive", "Entwickler"). A role decides the family over topic words next to it:
 *   "Fire Protection Engineer" is an engineer (OPM series 0804), not a safety job.
 * - `topic`: a domain word ("marketing", "finance", "logistics"): decides when no role does
 *   ("Marketing Manager", "Head of Finance").
 * - `weak`: a generic job noun whose family is only a default ("technician", "assistant",
 *   "inspector"): used only when neither a role nor a topic matched.
 *
 * Weights are the rule's standalone confidence, an estimate of how often a title carrying it belongs
 * to the family; a weight below 0.6 can support a family but never publish it alone. A longer match
 * that contains a shorter one replaces it ("data engineer" beats "engineer", "sales associate" beats
 * "sales"), so specific phrases are listed next to the generic ones they refine.
 */
import type { CategoryFamily } from '../domain/vocabulary.ts';

/**
 * `{N}` in a pattern stands for a generic job noun ("logistics {N}" is "logistics coordinator",
 * "logistics manager"...), so a domain word only becomes a role together with a real job noun and
 * never swallows the next phrase ("Supply Chain Data Analyst" stays a data analyst).
 */
export const ROLE_NOUN = String.raw`(?:manager|specialist|coordinator|associate|director|lead|analyst|assistant|executive|officer|clerk|supervisor|representative|rep|administrator|technician|planner|agent|worker|operator|generalist|partner|consultant|advisor|adviser|head|intern|trainee|handler|helper|leader|team member|staff|expert|strategist|owner|producer|creator|marketer|writer|scheduler|attendant|aide|crew|inspector|mechanic|program|team|department|services|support|operations)s?`;

/** How a rule's match counts: see the module docstring. */
export type RuleKind = 'role' | 'topic' | 'weak';
/** One rule: the family it points to, its kind, its standalone confidence in [0, 1], its pattern. */
export type RuleSpec = readonly [family: CategoryFamily, kind: RuleKind, weight: number, pattern: string];

export const CATEGORY_RULES: readonly RuleSpec[] = [
  // Engineering
  ['Engineering', 'role', 0.93, String.raw`software (?:development |dev )?(?:engineers?|developers?|architects?)|sde|swe|sdet|(?:back|front)[ -]?end (?:software )?(?:engineers?|developers?)|full[ -]?stack(?: software)? (?:engineers?|developers?)|fullstack|(?:web|mobile|ios|android|flutter|react|python|java|golang|go|rust|ruby|rails|php|node(?:\.?js)?|\.net|c\+\+|c#|typescript|javascript|kotlin|swift|scala|elixir|unity|game|graphics|compiler|kernel|linux|distributed systems) (?:engineers?|developers?)`],
  ['Engineering', 'role', 0.92, String.raw`devops(?: engineers?)?|dev ops|site reliability(?: engineers?)?|sre|mlops(?: engineers?)?|platform engineers?|infrastructure engineers?|cloud (?:engineers?|architects?)|systems? engineers?|network engineers?|embedded(?: software)? engineers?|firmware engineers?|hardware engineers?|electrical engineers?|electronics? engineers?|mechanical engineers?|civil engineers?|structural engineers?|aerospace engineers?|chemical engineers?|industrial engineers?|manufacturing engineers?|process engineers?|controls? engineers?|automation engineers?|robotics engineers?|(?:qa|test|quality|verification|validation|reliability|release|build) engineers?|design engineers?|rf engineers?|asic|fpga|general engineers?|engineer \(general\)|computer (?:scientists?|engineers?)|programmers?|machine learning engineers?|ml engineers?|(?:applied )?ai engineers?|research engineers?|forward deployed engineers?|tooling engineers?|(?:ai|ml|computer vision|perception|autonomy) engineers?`],
  ['Engineering', 'role', 0.9, String.raw`it (?:specialist|project manager|program manager|manager|director|administrator|architect|engineer|analyst|support specialist)|information technology (?:specialist|manager|project manager|program manager)|sysadmin|systems? administrator|database administrator|dba|network administrator|solutions? architects?|enterprise architects?|technical architects?|architects?|technical (?:project|program) manager|tpm|member of technical staff|testers?|qa analyst|developers?|engineering manager|tech lead|informatiker|\w*entwickler|\w*utvikler(?:e|en)?|\w*utvecklare|\w*ontwikkelaar|developpeur|developpeuse|desarrollador(?:a)?|programador(?:a)?|programmeur|programmerer`],
  ['Engineering', 'role', 0.8, String.raw`engineers?|ingenieur(?:e|in)?|\w+ingenieur(?:in)?|ingeniero|ingeniera|\w*ingenior|\w*ingenjor|ingegnere`],
  ['Engineering', 'topic', 0.72, String.raw`engineering|software|full[ -]?stack|back[ -]?end|front[ -]?end|devops|infrastructure|information technology|it (?:support|operations|security|infrastructure|systems|services|department|team|manager|director)|cto|computer science|systemutvikling|\w*technik`],

  // Data & Analytics
  ['Data & Analytics', 'role', 0.95, String.raw`data scientists?|data analysts?|data engineers?|analytics engineers?|data architects?|bi (?:analyst|engineer|developer)s?|business intelligence(?: analyst| engineer| developer)?|(?:bio|mathematical |survey |research )?statisticians?|operations research(?: analyst)?|data management|machine learning scientists?|ml scientists?|applied scientists?|quantitative analysts?|quant (?:researcher|analyst)s?|data annotat\w*|data label\w*|datenanalyst|data-analist|analista de datos|dataanalytiker`],
  ['Data & Analytics', 'topic', 0.8, String.raw`analytics|statistics|statistical|data (?!center|centre|entry)\w+|data|bi|insights|machine learning|business intelligence`],
  ['Engineering', 'role', 0.9, String.raw`(?:it|information technology) specialist \((?:appsw|sysadmin|network|netwk|sysanalysis|plcypln|enterarch|os|internet)[a-z/ ]*\)`],
  ['Data & Analytics', 'role', 0.95, String.raw`(?:it|information technology) specialist \([a-z/ ]*(?:datamgt|data management)[a-z/ ]*\)`],
  ['Security', 'role', 0.96, String.raw`(?:it|information technology) specialist \([a-z/ ]*(?:infosec|security|cyber[a-z]*)[a-z/ ]*\)`],
  ['Customer Support', 'role', 0.96, String.raw`(?:it|information technology) specialist \([a-z/ ]*(?:custspt|customer support)[a-z/ ]*\)`],

  // Security
  ['Security', 'role', 0.95, String.raw`security (?:engineers?|analysts?|architects?|researchers?|specialists?|officers?|guards?|consultants?|operations|manager|lead|director)|(?:cyber ?security|information security|infosec|appsec|application security|product security|cloud security|network security|offensive security) {N}|penetration testers?|pentesters?|soc analysts?|threat (?:intelligence|hunter|hunting|researcher|analyst)\w*|incident respon\w+|police(?: officer)?s?|police officer|criminal investigators?|special agents?|detectives?|intelligence (?:analyst|officer|operations|specialist|research)\w*|probation officers?|correctional officers?|physical security|personnel security|executive protection|protective (?:services|agent)|law enforcement|red team\w*|blue team\w*|vulnerability {N}`],
  ['Security', 'topic', 0.82, String.raw`security(?! clearance)|cyber ?security|cyber|infosec|\w*sicherheit|securite|seguridad|sikkerhet|sakerhet`],

  // Product
  ['Product', 'role', 0.95, String.raw`product managers?|product owners?|product management|head of product|vp,? product|director,? product(?! design| marketing)|product director|group product manager|product lead|lead product manager|produktmanager(?:in)?|produktowner|chef de produit|product operations|product ops|product strategist|produktansvarlig`],
  ['Product', 'topic', 0.6, String.raw`product`],

  // Design
  ['Design', 'role', 0.95, String.raw`(?:product|ux|ui|ux/ui|ui/ux|graphic|visual|interaction|motion|brand|web|interior|industrial|game|level|communication|digital|creative|content|service|experience|3d|fashion) designers?|ux (?:researcher|writer|lead|manager)s?|user experience|user interface|illustrators?|photographers?|videographers?|video (?:editor|producer)s?|animators?|art directors?|creative directors?|visual information specialist|audio ?visual production\w*|exhibits? specialist|exhibition specialist|graphic artist|broadcast technician|multimedia|grafiker(?:in)?|graphiste|ontwerper|disenador(?:a)?|designer(?:in)?`],
  ['Design', 'role', 0.78, String.raw`designers?`],
  ['Design', 'role', 0.9, String.raw`(?:product|ux|ui|ux/ui|ui/ux|graphic|visual|brand|interaction|motion|web|industrial|interior|experience|service) design`],
  ['Design', 'topic', 0.72, String.raw`design|ux|ui/ux|ux/ui|creative|broadcast|photograph\w*|video`],

  // Science & Research
  ['Science & Research', 'role', 0.9, String.raw`research scientists?|scientists?|physicists?|chemists?|biologists?|microbiologists?|meteorologists?|meteorological technicians?|hydrologists?|geologists?|geophysicists?|geodesists?|ecologists?|economists?|astronomers?|oceanographers?|epidemiologists?|toxicologists?|botanists?|zoologists?|agronomists?|social scientists?|physical scientists?|research (?:associate|fellow|assistant|analyst)s?|(?:ai|ml|machine learning) researchers?|postdoc\w*|(?:physical|biological|life|drug testing|laboratory|lab|hydrometeorological|meteorological|hydrologic|science|research) (?:science )?technicians?|economic assistants?|laboratory scientists?|lab scientists?|wissenschaftler(?:in)?|\w*wissenschaftler(?:in)?|chercheur|chercheuse|onderzoeker|investigador(?:a)? cientific\w*|forsker|forskare`],
  ['Science & Research', 'role', 0.75, String.raw`researchers?|\w*forscher(?:in)?|research and development|r&d`],
  ['Science & Research', 'topic', 0.76, String.raw`research|science|scientific|economic|economics|biology|chemistry|physics|laboratory|wildlife|fisheries|forestry|conservation|botany|ecology|geology|hydrology|meteorology`],

  // Healthcare
  ['Healthcare', 'role', 0.95, String.raw`nurses?|registered nurses?|rn|lpn|lvn|cna|nurse practitioners?|nursing|physicians?|physician assistants?|medical (?:doctor|director|officer|assistant|technician|technologist|scribe)s?|surgeons?|pharmacists?|pharmacy (?:technician|tech|assistant)s?|(?:physical|occupational|speech|respiratory|massage|aba|behavio(?:u)?r(?:al)?|mental health|family|marriage) therapists?|therapists?|physiotherapists?|psychologists?|psychiatrists?|psychiatric|psychotherapists?|counselors?|counsellors?|social workers?|dentists?|dental (?:hygienist|assistant|technician|lab technician)s?|hygienists?(?<!industrial hygienists?)|caregivers?|care (?:worker|assistant|giver)s?|behavior(?:al)? (?:technician|analyst)s?|registered behavior technicians?|rbt|bcba|bcaba|paramedics?|emt|midwi(?:fe|ves)|optometrists?|opticians?|audiologists?|dietitians?|nutritionists?|veterinar(?:ian|y)\w*|vet techs?|radiograph\w+|radiolog\w+|sonographers?|phlebotomists?|clinicians?|medical health scientists?|health science specialists?|health technicians?|\w*pfleger(?:in)?|pflegefach\w*|pflegekraft|pflegekrafte|\w*pflegehelfer(?:in)?|\w*arzt|\w*arztin|infirmier|infirmiere|medecin|aide[ -]soignante?|verpleegkundige|verzorgende|enfermer[oa]|medico|\w*sykepleier(?:e)?|helsefagarbeider|lege|overlege|fastlege|sjukskoterska|underskoterska|lakare|fysioterapeut|physiotherapeut|ergotherapeut|tannlege|tandlakare|psykolog|farmaceut|apotek\w*|jordmor|barnmorska`],
  ['Healthcare', 'topic', 0.72, String.raw`healthcare|health care|clinical|pharmacy|patient|hospital|dental|aba|autism|care (?:delivery|team)`],
  ['Healthcare', 'topic', 0.58, String.raw`health|medical|pflege|care`],

  // Education
  ['Education', 'role', 0.95, String.raw`education(?:al)? programs? {N}|education(?:al)? (?:aide|assistant|technician|coordinator|specialist|officer|program)s?|teachers?|teaching assistants?|lecturers?|professors?|educators?|tutors?|instructors?|training (?:specialist|instructor|officer|administrator|technician|coordinator)s?|instructional (?:designer|systems? specialist|technologist)s?|librar(?:ian|y technician)s?|library (?:aide|assistant|specialist)s?|curriculum {N}|learning (?:designer|experience designer|specialist)s?|education (?:specialist|program specialist|research analyst|coordinator)s?|school counselors?|\w*lehrer(?:in)?|lehrkraft|erzieher(?:in)?|enseignante?|professeure?|formateur|formatrice|leraar|docent|pedagoog|maestr[oa]|profesor(?:a)?|educador(?:a)?|\w*laerer|\w*larare|pedagog|barnehagelaerer|forskollarare|adjunkt|lektor`],
  ['Education', 'topic', 0.8, String.raw`education|educational|teaching|training|school|academic|pedagog\w*|e-?learning|learning & development|learning and development|l&d|humanities`],
  ['Education', 'role', 0.7, String.raw`trainers?|coach(?:es)? \(education\)`],

  // Finance
  ['Finance', 'role', 0.95, String.raw`accountants?|accounting (?:technician|clerk|specialist|manager|analyst)s?|bookkeep\w+|auditors?|controllers?(?<!air traffic controllers?)|financial (?:analyst|controller|planner|advisor|adviser|specialist|manager|management {N})s?|budget (?:analyst|officer|specialist|technician)s?|treasur\w+|actuar\w+|underwriters?|loan (?:officer|specialist|analyst|processor|underwriter|servicer|closer|originator|examiner)s?|mortgage (?:loan )?(?:officer|specialist|advisor|processor|underwriter|banker)s?|credit (?:analyst|officer|risk)\w*|tax (?:specialist|manager|analyst|accountant|advisor|associate|director)s?|payroll (?:specialist|manager|administrator|clerk|analyst)s?|accounts (?:payable|receivable)|grants? management {N}|fiscal (?:operations )?\w+|appraisers?|wealth (?:advisor|manager|management)s?|investment (?:analyst|banker|associate|banking)s?|fp&a|tellers?|cfo|\w*buchhalter(?:in)?|buchhaltung|steuerberater(?:in)?|finanzbuchhalter(?:in)?|comptable|comptabilite|controleur de gestion|boekhouder|contador(?:a)?|contable|\w*regnskap\w*|revisor|redovisningsekonom|ekonomiassistent`],
  ['Finance', 'topic', 0.84, String.raw`finance|financial|accounting|audit|budget|tax|payroll|billing|revenue cycle|collections|investment|investor relations|fund accounting|lending|banking|insurance|credit|grants?|\w*finanz\w*|finances|finanzas|finans\w*|okonomi\w*`],

  // Legal & Compliance
  ['Legal & Compliance', 'role', 0.95, String.raw`attorneys?|attorney[ -]advisor|lawyers?|(?:general|legal|corporate|commercial|product|associate|employment|privacy|regulatory|deputy general|assistant general) counsel|counsel|paralegals?|law clerks?|legal (?:assistant|secretary|specialist|counsel|analyst|officer|instruments examiner)s?|patent (?:examiner|attorney|agent|engineer)s?|trademark {N}|judges?|notar(?:y|ies)|compliance (?:officer|specialist|analyst|manager|investigator|associate|director|lead)s?|wage and hour investigators?|benefits investigators?|equal opportunity {N}|civil rights {N}|enforcement (?:officer|technician|specialist)s?|\w*jurist(?:in)?|rechtsanwalt|rechtsanwaltin|syndikus|avocate?|juriste|advocaat|abogad[oa]|advokat|notaire`],
  ['Legal & Compliance', 'topic', 0.84, String.raw`legal|compliance|regulatory|anti-money laundering|aml|kyc|privacy|wage and hour|governance|contracts counsel|enforcement|recht|juridique|juridisk\w*`],
  ['Legal & Compliance', 'weak', 0.58, String.raw`investigators?|inspectors?|examiners?`],

  // HR & Recruiting
  ['HR & Recruiting', 'role', 0.95, String.raw`recruiters?|recruiting|recruitment|talent acquisition|talent partner|talent (?:operations|manager|management|lead)|head of (?:talent|people)|sourcers?|headhunters?|human resources|human capital|hr|hrbp|people (?:operations|ops|partner|business partner|team|and culture|& culture|experience)(?: {N})?|employee (?:relations|experience|benefits)|labor relations|equal employment {N}|eeo|compensation (?:and benefits|analyst|manager|specialist)|benefits (?:specialist|manager|administrator|analyst)|workforce planning|\w*personalreferent(?:in)?|personalsachbearbeiter(?:in)?|personalwesen|recruteur|recruteuse|recrutement|charge de recrutement|ressources humaines|rh|recursos humanos|reclutador(?:a)?|reclutamiento|rekrutter\w*|rekryter\w*|hr-\w+`],
  ['HR & Recruiting', 'topic', 0.8, String.raw`people|personnel|recruit\w*|onboarding & offboarding|\w*personal(?:abteilung|leitung|entwicklung)`],

  // Procurement
  ['Procurement', 'role', 0.95, String.raw`procurement (?:(?:sr\.?|senior|jr\.?|junior|lead|principal|staff) )?{N}|purchasing (?:agent|manager|specialist|officer|assistant|coordinator)s?|buyers?|contract specialists?|contracting officers?|contracts? (?:manager|administrator|specialist|officer|price/cost analyst)s?|contract price\w*|property disposal {N}|sourcing (?:manager|specialist|lead|analyst)s?|strategic sourcing|supplier (?:manager|management|quality)|vendor management|\w*einkaufer(?:in)?|einkauf|acheteur|acheteuse|achats|inkoper|inkoop|compras|comprador(?:a)?|innkjop\w*|inkopare|inkop`],
  ['Procurement', 'topic', 0.84, String.raw`procurement|purchasing|sourcing|contracting|acquisitions?(?! (?:of|integration))`],

  // Logistics & Transport
  ['Logistics & Transport', 'role', 0.92, String.raw`logistics {N}|supply chain {N}|warehouse {N}|warehouse|inventory (?:management )?(?:specialist|manager|clerk|analyst|control|associate)s?|fulfil{1,2}ment {N}|distribution (?:center|centre|manager|associate|clerk|facilities {N})s?|dispatchers?|truck drivers?|delivery drivers?|drivers?|couriers?|forklift {N}|fork lift {N}|materials? handlers?|shipping (?:and receiving )?\w+|receiving {N}|transportation {N}|freight {N}|fleet (?:manager|coordinator)s?|pilots?|air traffic controllers?|motor vehicle operators?|supply (?:technician|specialist|chain|clerk)s?|demand planners?|supply planners?|customs {N}|\w*lagerist|lager(?:mitarbeiter|helfer|arbeiter|medarbeider|arbetare|logistik)\w*|\w*logistik\w*|\w*fahrer(?:in)?|chauffeur|chauffeurs|magasinier|logisticien|preparateur de commandes|conductor(?:a)? de|sjafor|truckforer|lastebilsjafor|vrachtwagenchauffeur|orderpicker`],
  ['Logistics & Transport', 'topic', 0.84, String.raw`logistics|supply chain|warehouse|inventory|transportation|transport|shipping|freight|distribution|fleet|aviation|supply`],

  // Operations & Admin
  ['Operations & Admin', 'role', 0.93, String.raw`administrative (?:assistant|officer|specialist|support|coordinator|manager|associate|support assistant)s?|office (?:manager|administrator|coordinator|assistant)s?|executive assistants?|personal assistants?|virtual assistants?|receptionists?|secretar(?:y|ies)|data entry {N}|program analysts?|management analysts?|management and program analysts?|program (?:specialist|coordinator|officer|assistant|support(?: {N})?)s?|business operations {N}|facilit(?:y|ies) (?:manager|operations|coordinator|specialist|technician|lead|director)s?|building (?:manager|management)\w*|chief of staff|support services?(?: (?:specialist|supervisor|assistant|manager|technician|officer|staff)s?)?|(?:mission|program|facility|facilities|administrative|business|office|operations|chamber) support(?: {N})?|government information specialist|clerks?|file clerk|mail (?:clerk|room)|admin|program examiners?|court reporters?|\w*sachbearbeiter(?:in)?|\w*verwaltung\w*|\w*assistenz|\w*sekretar(?:in)?|assistante? administratif|assistante? de direction|secretaire|administratief medewerker|secretaresse|officemanager|administrativ[oa]|auxiliar administrativ[oa]|sekretaer|kontormedarbeider|saksbehandler|handlaggare|kontorist`],
  ['Operations & Admin', 'weak', 0.7, String.raw`program managers?|programme managers?|project managers?|project coordinators?`],
  ['Operations & Admin', 'topic', 0.7, String.raw`operations|ops|administration|administrative|facilities|office|program management|project management|business operations`],
  ['Operations & Admin', 'weak', 0.62, String.raw`assistants?|coordinators?|aides?|administrators?`],

  // Consulting & Strategy
  ['Consulting & Strategy', 'role', 0.9, String.raw`management consultants?|strategy consultants?|strategy (?:manager|analyst|associate|lead|director)s?|strategic planners?|corporate development|(?:community|urban|city|regional|land use|transportation) planners?|unternehmensberater(?:in)?|strategieberater(?:in)?|consultant en strategie`],
  ['Consulting & Strategy', 'topic', 0.74, String.raw`strategy|consulting|advisory|consultancy|beratung`],
  ['Consulting & Strategy', 'weak', 0.66, String.raw`consultants?|strategists?|berater(?:in)?|conseiller|conseillere|adviseur|asesor(?:a)?|radgiver|radgivare`],

  // Marketing
  ['Marketing', 'role', 0.95, String.raw`marketers?|marketing {N}|product marketing|copywriters?|content (?:writer|marketer|strategist|manager|creator|specialist|lead|producer)s?|content strategy(?: {N})?|(?:technical |grant |ux |content |senior )?writers?|writer[ -/]editors?|editors?|editorial {N}|journalists?|reporters?|speechwriters?|public affairs {N}|public relations|pr (?:manager|specialist|lead|director|coordinator)s?|communications? (?:specialist|manager|director|lead|officer|coordinator|associate)s?|comms {N}|social media {N}|seo {N}|sem {N}|demand gen(?:eration)? {N}|growth marketing|lifecycle marketing|brand (?:manager|strategist|lead|director)s?|community managers?|media (?:relations|buyer|planner)s?|press (?:assistant|officer|secretary)s?|developer (?:relations|advocate)s?|devrel|influencer {N}|ugc {N}|\w*redakteur(?:in)?|texter(?:in)?|\w*kommunikation\w*|\w*kommunikasjon\w*|charge de communication|redacteur|redactrice|redacteur|communicatie\w*|comunicacion|\w*markedsforing\w*|\w*marknadsforing\w*|marknadsforare`],
  ['Marketing', 'topic', 0.86, String.raw`marketing|martech|search engine optimi[sz]ation|paid (?:media|search|social)|communications|comms|public affairs|brand|content|advertising|campaigns?|events?|media|editorial|seo|press|partnership marketing`],
  ['Marketing', 'topic', 0.55, String.raw`growth`],

  // Sales
  ['Sales', 'role', 0.95, String.raw`account executives?|ae|sales (?:representative|rep|development|executive|manager|director|engineer|consultant|specialist|lead|operations|associate \(b2b\))\w*|sdr|bdr|business development|business developer|account managers?|key account {N}|inside sales|field sales|outside sales|telesales|salesperson|salespeople|closers?|channel (?:sales|partner|account) {N}|partner(?:ship)?s? (?:manager|lead|director|development)|pre-?sales {N}|solutions? (?:engineer|consultant)s?|revenue operations|revops|deal desk|real estate agents?|realtors?|insurance (?:agent|sales)\w*|ingenieur (?:commercial|d'affaires)|\w*vertrieb\w*|aussendienst\w*|\w*verkauf\w*|kundenberater(?:in)?|commerciale?|charge d'affaires|business developer|ejecutivo comercial|ejecutiva comercial|ventas|vendedor(?:a)?|accountmanager|verkoop\w*|selger|\w*salg\w*|saljare|\w*forsaljning\w*`],
  ['Sales', 'topic', 0.88, String.raw`sales`],
  ['Sales', 'topic', 0.72, String.raw`partnerships?|revenue|commercial|go-to-market|gtm|b2b sales|enterprise sales|smb`],

  // Customer Support
  ['Customer Support', 'role', 0.95, String.raw`customer (?:support|service|care|happiness|experience|success|operations) {N}|customer (?:support|service|care|success|happiness)|client (?:support|services|success|care)|support (?:specialist|agent|representative|rep|engineer|analyst|associate|technician|lead|manager)s?|technical support|tech support|help ?desk|service desk|call cent(?:er|re)|contact cent(?:er|re)|it support|desktop support|chat (?:specialist|agent|support)\w*|support chat {N}|onboarding (?:specialist|manager|associate)s?|kundenservice|kundendienst|kundenbetreuer(?:in)?|kundensupport|service client|relation client|conseiller client\w*|klantenservice|klantcontact|atencion al cliente|servicio al cliente|kundeservice|kundservice|kundesenter|kundtjanst`],
  ['Customer Support', 'topic', 0.74, String.raw`customer success|customer experience|support|cx|onboarding`],

  // Retail
  ['Retail', 'role', 0.92, String.raw`store (?:manager|associate|assistant|supervisor|lead|clerk|director|team member)s?|assistant store managers?|cashiers?|visual merchandis\w+|merchandisers?|shop assistants?|sales associate|retail (?:associate|assistant|manager|sales|store)\w*|stock (?:associate|clerk)s?|boutique {N}|kassierer(?:in)?|filialleiter(?:in)?|verkaufer(?:in)?|caissier|caissiere|vendeur|vendeuse|cajer[oa]|dependient[ea]|kassamedewerker|winkelmedewerker|verkoopmedewerker|butikk\w*|butiks\w*|kassor|kasserer`],
  ['Retail', 'topic', 0.8, String.raw`retail|store|shop|boutique|e-?commerce store`],

  // Hospitality
  ['Hospitality', 'role', 0.93, String.raw`chefs?(?! (?:de|d') (?:projet|produit|service|equipe|rayon|secteur|departement|mission|atelier|bureau|groupe))|sous[ -]chefs?|chef de (?:partie|cuisine)|cooks?|line cooks?|prep cooks?|kitchen {N}|food service {N}|food and beverage|f&b|bartenders?|baristas?|waiters?|waitress\w*|servers?(?! \w*engineer)|housekeep\w+|laundry|hotel {N}|front desk|guest (?:services|relations|experience)\w*|restaurant {N}|catering|dishwashers?|hospitality|koch|kochin|\w*kuche\w*|kellner(?:in)?|servicekraft|cuisinier|cuisiniere|serveur|serveuse|kok|kokk|cociner[oa]|camarer[oa]|meser[oa]|servitor|servitris|hotellmedarbeider`],
  ['Hospitality', 'topic', 0.8, String.raw`hospitality|hotel|restaurant|food|culinary|catering|kitchen|event operations`],

  // Manufacturing
  ['Manufacturing', 'role', 0.92, String.raw`machine operators?|production (?:worker|operator|associate|technician|supervisor|planner|controller|control|lead|line|assistant)s?|production managers?|assemblers?|assembly (?:worker|technician|operator|associate)s?|machinists?|cnc {N}|manufacturing (?:associate|technician|operator|supervisor|manager|lead|specialist)s?|fabricators?|printing {N}|bindery {N}|bookbinders?|press operators?|upholsterers?|sewing {N}|seamstress\w*|tailors?|wood ?crafters?|woodworkers?|quality (?:control|inspector|technician)s?|qc (?:inspector|technician|analyst)s?|packers?|packaging (?:operator|technician|associate)s?|plant (?:worker|operator|manager)s?|\w*produktion\w*|maschinenbediener(?:in)?|maschinenfuhrer(?:in)?|operateur de production|operatrice de production|productiemedewerker|operari[oa]|\w*produksjon\w*|produktionstekniker`],
  ['Manufacturing', 'topic', 0.78, String.raw`manufacturing|production|factory|assembly|printing|fabrication`],
  ['Manufacturing', 'weak', 0.6, String.raw`operators?`],

  // Construction & Trades
  ['Construction & Trades', 'role', 0.95, String.raw`electricians?|plumbers?|pipefitters?|carpenters?|masons?|bricklayers?|painters?|welders?|welding|sheet metal {N}|roofers?|roofing|glaziers?|tilers?|drywall\w*|plasterers?|insulators?|insulation workers?|construction (?:control representative|representative|analyst|manager|project manager|superintendent|worker|laborer|inspector|estimator)s?|general contractors?|laborers?|labourers?|heavy equipment operators?|equipment operators?|estimators?|surveyors?|\w*elektriker(?:in)?|installateur(?:in)?|klempner(?:in)?|maurer(?:in)?|zimmerer|zimmermann|tischler(?:in)?|schreiner(?:in)?|maler(?:in)?|\w*schweisser(?:in)?|bauleiter(?:in)?|\w*bauarbeiter|electricien|plombier|macon|charpentier|menuisier|soudeur|elektricien|loodgieter|timmerman|metselaar|lasser|electricista|fontanero|carpintero|albanil|soldador|rorlegger|tomrer|snekker|murer|sveiser|byggeleder|snickare|rormokare|svetsare|byggarbetare`],
  ['Construction & Trades', 'topic', 0.84, String.raw`construction|trades|\w*bau|bygg\w*|chantier`],

  // Skilled Technician
  ['Skilled Technician', 'role', 0.9, String.raw`(?:electronics?|electronic|engineering|electrical|mechanical|maintenance|hvac|field service|service|aircraft|avionics|automotive|vehicle|diesel|elevator|wind turbine|solar|industrial|instrument\w*|calibration|controls?|biomedical(?: equipment)?|facilities|data cent(?:er|re)|network|telecom\w*|fib(?:er|re)|cable|repair|installation|robotics|test|production test|mri|x-ray|equipment) (?:technicians?|techs?|mechanics?)|mechanics?|hvac|air conditioning {N}|refrigeration {N}|power plant operators?|control room operators?|utility systems {N}|utility (?:plant )?operators?|(?:water|wastewater|water treatment|wastewater treatment|sewage|treatment) plant operators?|stationary engineers?|boiler (?:plant )?operators?|repairers?|installers?|maintenance (?:worker|technician|mechanic|engineer|specialist|supervisor)s?|millwrights?|boilermakers?|linemen|lineworkers?|\w*techniker(?:in)?|\w*mechaniker(?:in)?|\w*mechatroniker(?:in)?|elektroniker(?:in)?|monteur(?:in)?|technicien|mecanicien|monteur|monteurs|tecnico|mekaniker|tekniker|servicetekniker`],
  ['Skilled Technician', 'topic', 0.75, String.raw`maintenance|repair|hvac`],
  ['Skilled Technician', 'weak', 0.72, String.raw`technicians?|techs?`],

  // Safety & Environment
  ['Safety & Environment', 'role', 0.95, String.raw`(?:mine )?safety (?:and (?:occupational )?health|& health) {N}|safety and occupational health {N}|occupational (?:safety|health and safety) {N}|industrial hygienists?|environmental (?:protection|health|compliance|specialist|manager|coordinator)\w*|emergency management {N}|emergency (?:planner|preparedness)\w*|business continuity {N}|fire (?:fighter|inspector|marshal)s?|firefighters?|ehs|hse|qhse|she {N}|health and safety|health & safety|safety (?:officer|manager|specialist|coordinator|advisor|inspector|director|lead)s?|consumer safety officers?|\w*arbeitssicherheit|sicherheitsfachkraft|\w*umwelt\w*|hms|miljo\w*|arbetsmiljo\w*`],
  ['Safety & Environment', 'topic', 0.8, String.raw`safety(?<!trust (?:and|&) safety)|fire (?:protection|prevention|safety)|environmental|sustainability|environment|emergency management|hse|ehs`],
];

/**
 * Department and team values that carry no family even when a rule matches them ("Operations" is a
 * catch-all department name at many employers); they are ignored as tie-breakers.
 */
export const UNINFORMATIVE_HINTS: ReadonlySet<string> = new Set(['operations', 'general', 'other', 'all cost center', 'g&a', 'general & administrative', 'company operations', 'corporate', 'technical staff']);
