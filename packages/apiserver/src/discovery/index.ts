export {
  apiVersions,
  apiGroupList,
  apiGroup,
  apiResourceList,
  apiResources,
  groupsFromResources,
  versionInfo,
  type ApiGroupInfo,
  type VersionInfoOptions,
} from './documents.js';
export { storageVersionHash } from './storage-version-hash.js';
export { compareVersionPriority } from './version-priority.js';
export { aggregatedDiscovery, AGGREGATED_DISCOVERY_MEDIA_TYPE } from './aggregated.js';
export { API_LEVEL, serverGitVersion, UNKNOWN_BUILD, type BuildInfo } from './server-version.js';
