/**
 * One page of a list as the API answers it: its rows and how many match in all. The server's lists say more
 * (server/db/listing.ts ListPage: whether the count was capped, the next cursor); the console reads these two.
 */
export interface Page<T> {
  items: T[];
  total: number;
}

/** A page that also says which page it is and its size (the lists of a SIM's page). */
export interface NumberedPage<T> extends Page<T> {
  page: number;
  pageSize: number;
}
