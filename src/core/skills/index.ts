export { manifestDigest, planSkillFiles, skillKey, SKILL_BYTES_LIMIT, SKILL_FILE_LIMIT, type SkillFilePlan } from './skillManifest';
export {
  installedSkills,
  installSkill,
  ORIGIN_FILE,
  removeInstalledSkill,
  SkillInstallError,
  type InstalledSkill,
  type InstallSkillOptions,
  type ListedFile,
  type SkillOrigin,
} from './installedSkills';
export { SkillApprovals, type ApprovalStore } from './skillApprovals';
export { SKILL_PLACE_INFO, SKILL_PLACES, skillsFolderOf, type PlaceRoots, type SkillPlace } from './skillPlaces';
export { allowedToolsOf, reviewSkill, type SkillReview } from './skillReview';
