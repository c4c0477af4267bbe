Feature: Sneat's tables and inputs
  An admin template's tables, badges and a search box with a placeholder.

  @sample
  Scenario: A table's rows and their badges
    Given I open 'sneat-bootstrap-html-admin-template-free@1.0.0/package/html/tables-basic.html' in the browser
    Then I should see 'Angular Project'
    And I should see the 'ACTIVE' badge in the row of 'Angular Project'
    And I should see 'Barry Hunter'

  Scenario: The search box takes a query
    Given I open 'sneat-bootstrap-html-admin-template-free@1.0.0/package/html/tables-basic.html' in the browser
    When I type 'React' into the 'Search...' field
    Then I should see 'React'
    And I should not see 'Search...'

  Scenario: Column headers
    Given I open 'sneat-bootstrap-html-admin-template-free@1.0.0/package/html/tables-basic.html' in the browser
    Then I should see 'PROJECT'
    And I should see 'CLIENT'
    And I should see 'STATUS'

  Scenario: Basic inputs
    Given I open 'sneat-bootstrap-html-admin-template-free@1.0.0/package/html/forms-basic-inputs.html' in the browser
    Then I should see 'Basic Inputs'
    When I type 'Project Apollo' into the 'Name' field
    Then I should see 'Project Apollo'

  Scenario: The same project in both tables
    Given I open 'sneat-bootstrap-html-admin-template-free@1.0.0/package/html/tables-basic.html' in the browser
    Then I should see 2 'Angular Project'
    And I should see the second 'Angular Project'
